/* libFuzzer target: cdyn_builder_add_urdf_string on arbitrary text (seeds: tests/fuzz/corpus/
 * fuzz_urdf; dictionary fuzz_urdf.dict). The first byte picks the options (floating base,
 * cylinders as capsules, skip bits; bit 7 the friction and limit skips) and the mode: the rest of
 * the input is the URDF text, given without a terminating NUL so that AddressSanitizer sees any
 * read past it, or (bit 6) drives a generator of well-formed robots (links, joints of every type
 * with any parent, inertials, collisions, limits and dynamics, numbers from fz_double printed
 * with %.17g: NaN, Inf, huge, negative), which reaches the tree and builder checks that mutated
 * XML rarely gets to.
 * Invariants: a valid status echoed by the report; on failure the builder's sizes are as before
 * and *map untouched; on CDYN_OK a consistent map (every link's body and every collision's
 * geometry an id the builder holds, joints moving their child links' bodies, lookups by name
 * finding each entry) and a builder that builds or refuses cleanly; the same status again; then
 * every allocation of a successful load failed in turn: CDYN_ENOMEM, the builder unchanged;
 * every block released in every run. */
#include <stdarg.h>

#include "fuzz_common.h"

#include "cdyn/urdf.h"
#include "model/builder_mark.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_mark(cdyn_builder_mark a, cdyn_builder_mark b)
{
    return a.nbody == b.nbody && a.ngeom == b.ngeom && a.nvert == b.nvert && a.npair == b.npair;
}

static void check_map(const cdyn_urdf_map *map, cdyn_builder_mark before,
                      cdyn_builder_mark after)
{
    int nl, nj, nc;
    cdyn_urdf_map_sizes(map, &nl, &nj, &nc);
    FZ_CHECK(nl >= 1 && nj == nl - 1 && nc >= 0);
    for (int k = 0; k < nl; ++k) {
        cdyn_urdf_link l, f;
        FZ_CHECK(cdyn_urdf_link_at(map, k, &l, NULL) == CDYN_OK);
        FZ_CHECK(l.index == k && l.name != NULL && l.name[0] != '\0');
        FZ_CHECK(l.body == CDYN_GROUND || (l.body >= before.nbody && l.body < after.nbody));
        FZ_CHECK(cdyn_urdf_find_link(map, l.name, &f, NULL) == CDYN_OK && f.index == k);
        FZ_CHECK(l.ncollision >= 0 && l.first_collision + l.ncollision <= nc);
    }
    for (int k = 0; k < nj; ++k) {
        cdyn_urdf_joint j, f;
        cdyn_urdf_link child;
        FZ_CHECK(cdyn_urdf_joint_at(map, k, &j, NULL) == CDYN_OK);
        FZ_CHECK(cdyn_urdf_find_joint(map, j.name, &f, NULL) == CDYN_OK && f.index == k);
        FZ_CHECK(cdyn_urdf_find_link(map, j.child, &child, NULL) == CDYN_OK);
        FZ_CHECK(child.body == j.body && child.parent_joint == k);
    }
    for (int k = 0; k < nc; ++k) {
        cdyn_urdf_collision c;
        FZ_CHECK(cdyn_urdf_collision_at(map, k, &c, NULL) == CDYN_OK);
        FZ_CHECK(c.geom == -1 || (c.geom >= before.ngeom && c.geom < after.ngeom));
        FZ_CHECK(c.link >= 0 && c.link < nl && c.name != NULL);
    }
}

/* One load into a new builder on allocator fa; returns the status, checks the invariants. */
static cdyn_status load(const char *text, size_t size, const cdyn_urdf_options *o,
                        test_failing_alloc *fa, int fail_at, int check, int *used)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.allocator = &fa->allocator;
    cdyn_builder *b = NULL;
    FZ_CHECK(cdyn_builder_create(&bo, &b, NULL) == CDYN_OK);
    const cdyn_builder_mark before = cdyn_builder_get_mark(b);
    const int start = fa->allocations;
    fa->fail_after = fail_at < 0 ? -1 : start + fail_at;
    cdyn_urdf_map *sentinel = (cdyn_urdf_map *)fa, *map = sentinel;
    cdyn_report r;
    const cdyn_status s = cdyn_builder_add_urdf_string(b, text, size, o, &map, &r);
    fa->fail_after = -1;
    *used = fa->allocations - start;
    fz_check_report(&r, s);
    if (check && getenv("FZ_VERBOSE") != NULL)
        fprintf(stderr, "fuzz_urdf: %s: %s\n", cdyn_status_str(s), r.message);
    const cdyn_builder_mark after = cdyn_builder_get_mark(b);
    if (s == CDYN_OK) {
        FZ_CHECK(map != sentinel && map != NULL);
        if (check) {
            check_map(map, before, after);
            cdyn_model *m = NULL;
            const cdyn_status sb = cdyn_builder_build(b, &m, &r);
            fz_check_report(&r, sb);
            FZ_CHECK((sb == CDYN_OK) == (m != NULL));
            cdyn_model_free(m);
        }
        cdyn_urdf_map_free(map);
    } else {
        FZ_CHECK(map == sentinel);
        FZ_CHECK(same_mark(before, after));
        FZ_CHECK(strlen(r.message) > 0);
    }
    cdyn_builder_free(b);
    FZ_CHECK(fa->live == 0);
    return s;
}

/* Text appended with bounds (the generator's output stays below GEN_MAX). */
#define GEN_MAX 16384
typedef struct gen {
    char text[GEN_MAX];
    size_t len;
} gen;

static void put(gen *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(g->text + g->len, GEN_MAX - g->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        g->len = g->len + (size_t)n < GEN_MAX ? g->len + (size_t)n : GEN_MAX - 1;
}

/* Three numbers, mostly tame (so that most robots load), sometimes anything fz_double gives. */
static void put_numbers(gen *g, fz_reader *f, const char *attr, int n)
{
    put(g, " %s='", attr);
    const unsigned wild = fz_byte(f) < 32;
    for (int k = 0; k < n; ++k)
        put(g, "%s%.17g", k ? " " : "", wild ? fz_double(f) : (double)(int8_t)fz_byte(f) / 64.0);
    put(g, "'");
}

static void generate(gen *g, fz_reader *f)
{
    static const char *const types[] = {"fixed", "revolute", "continuous", "prismatic",
                                        "floating", "planar", "hinge"};
    static const char *const shapes[] = {"sphere", "box", "cylinder", "mesh", "capsule"};
    const int n = 1 + (int)(fz_byte(f) % 8);
    put(g, "<robot name='g'>\n");
    for (int k = 0; k < n; ++k) {
        const unsigned b = fz_byte(f);
        put(g, "<link name='l%d'>", k);
        if (b & 1u) {
            put(g, "<inertial><origin");
            put_numbers(g, f, "xyz", 3);
            put_numbers(g, f, "rpy", 3);
            put(g, "/><mass");
            put_numbers(g, f, "value", 1);
            put(g, "/><inertia ixx='%.17g' ixy='%.17g' ixz='%.17g' iyy='%.17g' iyz='%.17g' "
                   "izz='%.17g'/></inertial>",
                (b & 2u) ? fz_double(f) : 1.0, (b & 2u) ? fz_double(f) : 0.0,
                (b & 2u) ? fz_double(f) : 0.0, (b & 2u) ? fz_double(f) : 1.0,
                (b & 2u) ? fz_double(f) : 0.0, (b & 2u) ? fz_double(f) : 1.0);
        }
        for (unsigned c = 0; c < ((b >> 2) & 3u); ++c) {
            const char *shape = shapes[fz_byte(f) % 5];
            put(g, "<collision name='c%u'><origin", c);
            put_numbers(g, f, "xyz", 3);
            put_numbers(g, f, "rpy", 3);
            put(g, "/><geometry><%s", shape);
            put_numbers(g, f, shape[0] == 'b' ? "size" : "radius", shape[0] == 'b' ? 3 : 1);
            if (shape[0] == 'c' || shape[0] == 'm')
                put_numbers(g, f, shape[0] == 'm' ? "scale" : "length", 1);
            put(g, "/></geometry></collision>");
        }
        put(g, "</link>\n");
        if (k == 0 && (b & 16u))
            continue; /* a root; other links may still come without parents */
        const unsigned t = fz_byte(f);
        const int parent = (b & 32u) ? (int)(fz_byte(f) % (unsigned)n) : (k > 0 ? k - 1 : 0);
        put(g, "<joint name='j%d' type='%s'><parent link='l%d'/><child link='l%d'/><origin", k,
            types[t % 7], parent, k);
        put_numbers(g, f, "xyz", 3);
        put_numbers(g, f, "rpy", 3);
        put(g, "/><axis");
        put_numbers(g, f, "xyz", 3);
        put(g, "/>");
        if (!(t & 8u)) { /* any lower, upper (reversed, NaN, ...): joint limits */
            put(g, "<limit effort='1' velocity='1'");
            put_numbers(g, f, "lower", 1);
            put_numbers(g, f, "upper", 1);
            put(g, "/>");
        }
        if (t & 16u) { /* any damping, friction (negative, NaN, ...) */
            put(g, "<dynamics");
            put_numbers(g, f, "damping", 1);
            put_numbers(g, f, "friction", 1);
            put(g, "/>");
        }
        if ((t & 96u) == 96u)
            put(g, "<mimic joint='j0'/>");
        put(g, "</joint>\n");
    }
    put(g, "</robot>\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const unsigned flags = data[0];
    cdyn_urdf_options o;
    cdyn_urdf_defaults(&o);
    o.floating_base = (int)(flags & 1u);
    o.cylinder_as_capsule = (int)((flags >> 1) & 1u);
    o.skip = ((flags >> 2) & 15u) | ((flags & 128u) ? CDYN_URDF_SKIP_FRICTION |
                                                          CDYN_URDF_SKIP_LIMITS : 0u);
    static gen g;
    g.len = 0;
    if (flags & 64u) {
        fz_reader f = {data + 1, size - 1};
        generate(&g, &f);
    } else {
        g.len = size - 1;
    }
    char *text = malloc(g.len ? g.len : 1);
    FZ_CHECK(text != NULL);
    memcpy(text, (flags & 64u) ? (const uint8_t *)g.text : data + 1, g.len);

    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    int sites = 0, used = 0;
    const cdyn_status s = load(text, g.len, &o, &fa, -1, 1, &sites);
    FZ_CHECK(load(text, g.len, &o, &fa, -1, 0, &used) == s);
    if (s == CDYN_OK)
        for (int k = 0; k < sites; ++k)
            FZ_CHECK(load(text, g.len, &o, &fa, k, 0, &used) == CDYN_ENOMEM);
    free(text);
    return 0;
}
