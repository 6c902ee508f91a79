/* The billiard ball's model (billiard_ball.h). */
#include "billiard_ball.h"

cdyn_model *billiard_ball_model(double k, cdyn_report *rep)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -BALL_G;
    cdyn_builder *b = NULL;
    cdyn_model *m = NULL;
    if (cdyn_builder_create(&bo, &b, rep) != CDYN_OK)
        return NULL;
    cdyn_body_desc ball;
    cdyn_body_desc_defaults(&ball);
    ball.mass = BALL_MASS;
    ball.inertia[0] = ball.inertia[1] = ball.inertia[2] = 0.4 * BALL_MASS * BALL_R * BALL_R;
    cdyn_geom_desc table, sphere;
    cdyn_geom_desc_defaults(&table);
    cdyn_geom_desc_defaults(&sphere);
    sphere.type = CDYN_GEOM_SPHERE;
    sphere.size[0] = BALL_R;
    cdyn_contact_pair_desc pair;
    cdyn_contact_pair_desc_defaults(&pair);
    pair.mu = BALL_MU;
    pair.stiffness[0] = pair.stiffness[4] = pair.stiffness[8] = k;
    int body, id;
    if (cdyn_builder_add_body(b, &ball, &body, rep) == CDYN_OK &&
        (sphere.body = body, cdyn_builder_add_geom(b, &table, &pair.geom_a, rep)) == CDYN_OK &&
        cdyn_builder_add_geom(b, &sphere, &pair.geom_b, rep) == CDYN_OK &&
        cdyn_builder_add_contact_pair(b, &pair, &id, rep) == CDYN_OK)
        cdyn_builder_build(b, &m, rep);
    cdyn_builder_free(b);
    return m;
}
