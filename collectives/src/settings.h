/* The library's settings (GRIDSCOPE_COLL* environment variables): declared once in
 * collectives/settings.toml, whose generated table (settings_table.c, settings_ids.h) this
 * reads. Every variable is read and checked together, at the first collective call. A bad
 * value never stops the run: world rank 0 prints one warning line naming the variable, the
 * value and what is allowed, and the setting takes its fallback (an algorithm: vanilla;
 * anything else: its default). Files named by a setting are read where they are used. */
#ifndef GS_COLL_SETTINGS_H
#define GS_COLL_SETTINGS_H

#include <stddef.h>

#include "settings_ids.h"

typedef enum {
    GSC_TYPE_CHOICE,    /* one of choices */
    GSC_TYPE_ALGORITHM, /* one of choices: the registry names of op */
    GSC_TYPE_INTEGER,   /* min..max, decimal digits only */
    GSC_TYPE_PATH,      /* any text */
} gsc_setting_type;

typedef struct {
    const char *name;
    gsc_setting_type type;
    const char *dflt;     /* "" = unset */
    const char *fallback; /* what a bad value becomes ("" = dflt) */
    long long min, max;   /* integer */
    const char *const *choices; /* choice, algorithm: NULL-terminated */
    const char *op;       /* algorithm: the collective's name (GSColl_Op_name) */
    const char *allowed;  /* what a value may be, in words */
} gsc_setting_decl_t;

extern const gsc_setting_decl_t gsc_setting_decls[GSC_NSETTINGS];

typedef struct {
    int set;        /* 0: unset (neither given nor defaulted) */
    const char *text; /* the value ("" when unset) */
    long long num;  /* integer settings: the value (0 when unset) */
} gsc_setting_val_t;

/* The value of `raw` (NULL or "" = not given) for d. Returns 0, or -1 with the one warning
 * line in warn (then *out holds the fallback). */
int gsc_setting_parse(const gsc_setting_decl_t *d, const char *raw, gsc_setting_val_t *out,
                      char *warn, size_t warn_len);

/* Every setting from lookup(name) (getenv in the library) into out[GSC_NSETTINGS]; each
 * warning line goes to report(line). Returns the number of bad values. */
int gsc_settings_read(const char *(*lookup)(const char *), gsc_setting_val_t *out,
                      void (*report)(const char *line));

/* The process's settings, read from the environment on first use. */
const gsc_setting_val_t *gsc_setting(gsc_setting_id id);
static inline int gsc_setting_set(gsc_setting_id id) { return gsc_setting(id)->set; }
static inline long long gsc_setting_num(gsc_setting_id id) { return gsc_setting(id)->num; }
static inline const char *gsc_setting_text(gsc_setting_id id) { return gsc_setting(id)->text; }
/* The GRIDSCOPE_COLL_<OP> setting of a collective (by its GSColl_Op_name). */
int gsc_setting_of_op(const char *op_name);

#endif
