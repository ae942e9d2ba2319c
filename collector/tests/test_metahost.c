/* Metahost resolution: env, map file (rank ranges, globs, file order), errors. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "gridscope/metahost.h"

static char name[64], err[512];

static int map(const char *json, int rank, const char *host)
{
    name[0] = err[0] = '\0';
    return gs_metahost_from_map_text(json, "m.json", rank, host, name, sizeof name, err,
                                     sizeof err);
}

int main(void)
{
    const char *m = "{\"jsc\": [\"rank:0-3\", \"jsc-*\"], \"fzj\": [\"rank:4-7\"],"
                    " \"any\": \"*\"}";
    CHECK(map(m, 2, "x") == 1 && strcmp(name, "jsc") == 0);
    CHECK(map(m, 5, "jsc-01") == 1 && strcmp(name, "jsc") == 0); /* file order wins */
    CHECK(map(m, 5, "x") == 1 && strcmp(name, "fzj") == 0);
    CHECK(map(m, 9, "y") == 1 && strcmp(name, "any") == 0);
    CHECK(map("{\"a\": [\"rank:1\"]}", 0, "h") == 0);
    CHECK(map("{\"a\": [\"rank:1\"]}", 1, "h") == 1);
    CHECK(map("{\"a\\u0062\": [\"h\"]}", 0, "h") == 1 && strcmp(name, "ab") == 0);

    /* Invalid maps: one message naming the file. */
    CHECK(map("[]", 0, "h") == -1 && strstr(err, "m.json") != NULL);
    CHECK(map("{}", 0, "h") == -1);
    CHECK(map("{\"a\": []}", 0, "h") == -1 && strstr(err, "needs a list") != NULL);
    CHECK(map("{\"a\": [\"rank:5-2\"]}", 0, "h") == -1 && strstr(err, "empty rank range"));
    CHECK(map("{\"a\": [\"rank:x\"]}", 0, "h") == -1 && strstr(err, "bad rank selector"));
    CHECK(map("{\"a/b\": [\"h\"]}", 0, "h") == -1 && strstr(err, "bad metahost name"));
    CHECK(map("{\"a\": [\"\"]}", 0, "h") == -1);
    CHECK(map("{\"a\": [\"h\"", 0, "h") == -1);
    CHECK(map("{\"a\": [\"h\"]} x", 0, "h") == -1);
    CHECK(map("{\"a\": [3]}", 0, "h") == -1);

    /* The full order: env beats map file; map file errors; default. */
    char path[] = "/tmp/gs_test_mapXXXXXX";
    int fd = mkstemp(path);
    const char *text = "{\"left\": [\"rank:0\"], \"right\": [\"rank:1-9\"]}";
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    unsetenv(GS_METAHOST_ENV);
    setenv(GS_METAHOST_MAP_ENV, path, 1);
    CHECK(gs_metahost_resolve(3, "h", name, sizeof name, err, sizeof err) == 0 &&
          strcmp(name, "right") == 0);
    CHECK(gs_metahost_resolve(10, "h", name, sizeof name, err, sizeof err) == -1 &&
          strstr(err, "no metahost matches rank 10") != NULL);
    setenv(GS_METAHOST_ENV, "forced", 1);
    CHECK(gs_metahost_resolve(10, "h", name, sizeof name, err, sizeof err) == 0 &&
          strcmp(name, "forced") == 0);
    unsetenv(GS_METAHOST_ENV);
    setenv(GS_METAHOST_MAP_ENV, "/nonexistent/map.json", 1);
    CHECK(gs_metahost_resolve(0, "h", name, sizeof name, err, sizeof err) == -1 &&
          strstr(err, "/nonexistent/map.json: cannot read") != NULL);
    unsetenv(GS_METAHOST_MAP_ENV);
    CHECK(gs_metahost_resolve(0, "h", name, sizeof name, err, sizeof err) == 0 &&
          strcmp(name, GS_METAHOST_DEFAULT) == 0);
    char tiny[4];
    setenv(GS_METAHOST_ENV, "toolong", 1);
    CHECK(gs_metahost_resolve(0, "h", tiny, sizeof tiny, err, sizeof err) == -1);
    unlink(path);
    CHECK_DONE();
}
