/* SPDX-License-Identifier: MIT */
/* A worker thread's libuv loop and the async handle that stops it: the driver's workers
 * (driver/scheduling/worker_thread.c) and the reference server's (tools/refserver/worker.c). */
#ifndef LOADLENS_UV_LOOP_H
#define LOADLENS_UV_LOOP_H

#include <stdbool.h>
#include <uv.h>

/*
 * uv_loop_init(loop), then uv_async_init(loop, stop, on_stop). *loop_ok is set once the loop is
 * made (it must then be closed), *stop_ok once the handle is (it must then be uv_close()d), so
 * that the caller's cleanup knows what to undo. Returns 0 or a libuv error.
 */
static inline int ll_uv_loop_init_with_stop(uv_loop_t *loop, bool *loop_ok, uv_async_t *stop,
					    uv_async_cb on_stop, bool *stop_ok)
{
	int err = uv_loop_init(loop);

	if (err)
		return err;
	*loop_ok = true;
	err = uv_async_init(loop, stop, on_stop);
	if (err)
		return err;
	*stop_ok = true;
	return 0;
}

#endif /* LOADLENS_UV_LOOP_H */
