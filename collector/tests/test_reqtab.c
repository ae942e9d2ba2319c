/* Request table: insert, find, take, reuse of handles, growth past many entries. */
#include "check.h"
#include "reqtab.h"

int main(void)
{
    gs_reqtab_t t;
    CHECK(gs_reqtab_init(&t, 4) == 0);
    gs_req_t r = {0x1000, 1, 0, GS_REQ_ISEND, 0};
    CHECK(gs_reqtab_put(&t, &r) == 0);
    CHECK(gs_reqtab_get(&t, 0x1000) && gs_reqtab_get(&t, 0x1000)->id == 1);
    CHECK(gs_reqtab_get(&t, 0x2000) == NULL);
    r.handle = 0;
    CHECK(gs_reqtab_put(&t, &r) == -1); /* handle 0 = MPI_REQUEST_NULL style, refused */

    /* Many live requests, then take every other one and check the rest survive. */
    for (uint64_t i = 1; i <= 5000; i++) {
        gs_req_t e = {i * 64, i, (uint32_t)(i % 7), (int)(i % 2) + 1, 0};
        CHECK(gs_reqtab_put(&t, &e) == 0);
    }
    CHECK_EQ_U64(t.count, 5000); /* 0x1000 = 64*64 was replaced by the loop's entry */
    for (uint64_t i = 1; i <= 5000; i += 2) {
        gs_req_t out;
        CHECK(gs_reqtab_take(&t, i * 64, &out) == 1);
        CHECK_EQ_U64(out.id, i);
        CHECK(gs_reqtab_take(&t, i * 64, &out) == 0);
    }
    for (uint64_t i = 2; i <= 5000; i += 2) {
        gs_req_t *e = gs_reqtab_get(&t, i * 64);
        CHECK(e != NULL);
        if (e) CHECK_EQ_U64(e->comm, i % 7);
    }
    /* A handle reused by MPI after completion gets a fresh entry. */
    gs_req_t again = {3 * 64, 99, 1, GS_REQ_IRECV, 0};
    CHECK(gs_reqtab_put(&t, &again) == 0);
    CHECK(gs_reqtab_get(&t, 3 * 64)->id == 99);
    CHECK_EQ_U64(t.count, 2501);

    /* A non-blocking collective's entry keeps what its completion reports, through growth
     * of the table, and leaves it on take. */
    gs_req_t ic = gs_req_icoll(0xbeef0, 7, 3, 11, 2, 96, 384);
    CHECK(gs_reqtab_put(&t, &ic) == 0);
    for (uint64_t i = 5001; i <= 9000; i++) {
        gs_req_t e = {i * 64, i, 0, GS_REQ_ISEND, 0};
        CHECK(gs_reqtab_put(&t, &e) == 0);
    }
    gs_req_t got;
    CHECK(gs_reqtab_take(&t, 0xbeef0, &got) == 1);
    CHECK_EQ_U64(got.kind, GS_REQ_ICOLL);
    CHECK_EQ_U64(got.id, 7);
    CHECK_EQ_U64(got.comm, 3);
    CHECK_EQ_U64(got.op, 11);
    CHECK_EQ_U64(got.root, 2);
    CHECK_EQ_U64(got.bytes, 96);
    CHECK_EQ_U64(got.recvd, 384);
    CHECK(gs_reqtab_get(&t, 0xbeef0) == NULL);
    gs_req_t none = gs_req_icoll(0xbeef8, 8, 0, 0, -1, 0, 0);
    CHECK(none.root == -1 && none.kind == GS_REQ_ICOLL && none.cancelled == 0);
    gs_reqtab_destroy(&t);
    CHECK_DONE();
}
