/* cdyn — symbol visibility. Only declarations marked CDYN_API are exported from the shared
 * library; everything else in src/ is internal. */
#ifndef CDYN_EXPORT_H
#define CDYN_EXPORT_H

#if defined(_WIN32) && defined(CDYN_SHARED_BUILD)
#define CDYN_API __declspec(dllexport)
#elif defined(__GNUC__)
#define CDYN_API __attribute__((visibility("default")))
#else
#define CDYN_API
#endif

#endif
