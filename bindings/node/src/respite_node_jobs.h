/*
 * respite_node_jobs.h - runs the core's blocking calls off the event loop.
 *
 * respite_client_request (libcurl, retries with sleeps), respite_sender_flush
 * and respite_sender_close can wait for seconds; Node must never wait. Each
 * such call becomes a job for the addon's own pool of threads (not libuv's
 * four shared threads, which fs and dns need: an HTTP call that hangs must
 * not stall them). The pool grows while every thread is busy, up to 64
 * threads, and idle threads wait for the next job. A finished job is handed
 * to its event loop through a Node-API thread-safe function, which calls the
 * JavaScript callback there (and keeps the loop alive meanwhile).
 *
 * A worker thread that ends while a job runs: Node finalizes the thread-safe
 * function with the environment and the job is marked finalized; the pool
 * thread then never touches that function again and frees the result. Who
 * frees the job is counted (the pool thread and the finalizer each hold one
 * reference); the job's lock orders the pool thread's last calls on the
 * function before the finalizer returns.
 *
 * Included by the SWIG wrapper (swig/node.i): SWIG_NewPointerObj and the
 * type table are defined before it.
 */
#ifndef RESPITE_NODE_JOBS_H
#define RESPITE_NODE_JOBS_H

#include <napi.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

struct respite_node_job {
    /* the blocking call, its inputs copied into the closure (JavaScript's
     * buffers are gone when the call returns); it fills the outputs */
    std::function<void(respite_node_job *)> call;
    respite_response *response = nullptr;
    int64_t value = 0;
    respite_error err;
    /* delivery on the loop's thread */
    Napi::ThreadSafeFunction done;
    std::mutex lock;
    bool finalized = false; /* the thread-safe function is gone */
    int refs = 0;
    bool detached = false; /* no loop waits for it (a sender freed later) */
};

/* ------------------------------------------------------------------ pool */

struct respite_node_pool {
    std::mutex lock;
    std::condition_variable wake;
    std::deque<respite_node_job *> jobs;
    int threads = 0;
    int idle = 0;
};

static const int respite_node_pool_max = 64;

/* Never destroyed: idle threads still wait on it while the process exits. */
static respite_node_pool *respite_node_the_pool()
{
    static respite_node_pool *pool = new respite_node_pool();
    return pool;
}

static void respite_node_job_release(respite_node_job *job)
{
    int left;
    {
        std::lock_guard<std::mutex> guard(job->lock);
        left = --job->refs;
    }
    if (left > 0)
        return;
    respite_response_free(job->response); /* not delivered: nobody else has it */
    delete job;
}

static void respite_node_job_deliver(Napi::Env env, Napi::Function fn, respite_node_job *job);

static void respite_node_job_run(respite_node_job *job)
{
    memset(&job->err, 0, sizeof job->err);
    job->call(job);
    if (job->detached) {
        delete job;
        return;
    }
    {
        std::lock_guard<std::mutex> guard(job->lock);
        if (!job->finalized) {
            job->done.NonBlockingCall(job, respite_node_job_deliver);
            job->done.Release();
        }
    }
    respite_node_job_release(job);
}

static void respite_node_pool_thread()
{
    respite_node_pool *pool = respite_node_the_pool();
    for (;;) {
        respite_node_job *job;
        {
            std::unique_lock<std::mutex> guard(pool->lock);
            pool->idle++;
            pool->wake.wait(guard, [pool] { return !pool->jobs.empty(); });
            pool->idle--;
            job = pool->jobs.front();
            pool->jobs.pop_front();
        }
        respite_node_job_run(job);
    }
}

static void respite_node_pool_push(respite_node_job *job)
{
    respite_node_pool *pool = respite_node_the_pool();
    bool grow = false;
    {
        std::lock_guard<std::mutex> guard(pool->lock);
        pool->jobs.push_back(job);
        /* Every waiting job needs an idle thread, or it waits for a call. */
        if ((int)pool->jobs.size() > pool->idle && pool->threads < respite_node_pool_max) {
            pool->threads++;
            grow = true;
        }
    }
    if (grow) {
        try {
            std::thread(respite_node_pool_thread).detach();
        } catch (...) {
            /* no thread: the job waits for a busy one */
            std::lock_guard<std::mutex> guard(pool->lock);
            pool->threads--;
        }
    }
    pool->wake.notify_one();
}

/* -------------------------------------------------------- loop's side */

/* Calls callback(error or null, result). An exception it throws is the
 * caller's (synchronous) or Node's uncaughtException. */
static void respite_node_call_back(Napi::Env env, Napi::Function fn, const respite_error *err, Napi::Value result,
                                   bool asynchronous)
{
    Napi::Value error = env.Null();
    if (err->status != RESPITE_OK) {
        error = respite_node_error(env, err);
        if (error.IsEmpty())
            return; /* making it threw: that exception stands */
    }
    std::initializer_list<napi_value> argv = {error, result};
    /* MakeCallback runs the microtasks and nextTicks the callback queued. */
    if (asynchronous)
        fn.MakeCallback(env.Global(), argv);
    else
        fn.Call(argv);
}

/* A request's response (JavaScript owns it now), else the number. */
static Napi::Value respite_node_job_result(Napi::Env env, respite_node_job *job)
{
    respite_response *response = job->response;
    job->response = nullptr;
    if (response)
        return SWIG_NewPointerObj((void *)response, SWIGTYPE_p_respite_response, 0);
    return job->err.status == RESPITE_OK ? Napi::Number::New(env, (double)job->value) : env.Null();
}

/* On the loop's thread; fn is empty when the environment is going away. */
static void respite_node_job_deliver(Napi::Env env, Napi::Function fn, respite_node_job *job)
{
    if (env == nullptr || fn.IsEmpty())
        return;
    Napi::HandleScope scope(env);
    respite_node_call_back(env, fn, &job->err, respite_node_job_result(env, job), true);
}

static void respite_node_job_finalize(Napi::Env, void *, respite_node_job *job)
{
    {
        std::lock_guard<std::mutex> guard(job->lock);
        job->finalized = true;
    }
    respite_node_job_release(job);
}

/* Runs call on the pool; callback(error or null, result) on this loop. */
static void respite_node_submit(respite_node_callback *callback, std::function<void(respite_node_job *)> call)
{
    respite_node_job *job = new respite_node_job();
    job->call = std::move(call);
    job->refs = 2; /* the pool thread's and the finalizer's */
    job->done = Napi::ThreadSafeFunction::New(callback->fn.Env(), callback->fn, "respite", 0, 1, job,
                                              respite_node_job_finalize, (void *)nullptr);
    respite_node_pool_push(job);
}

/* ------------------------------------------------------------ the calls */

/* Refusals are answered here, at once: when the gate refuses for longer than
 * this, the core's own request (which asks the gate first and refuses
 * without any I/O, C1) runs on the caller's thread. Only a pause that ends
 * within this margin could admit the call meanwhile; those go to the pool. */
static const double respite_node_refusal_margin = 0.05;

/* cancel (may be NULL): the AbortSignal's token; the job holds a reference
 * of its own while it runs (C10). */
void respite_node_request_start(respite_client *client, respite_gate *gate, const char *method, const char *url,
                                const char *headers, const char *data, size_t size, respite_cancel_token *cancel,
                                respite_node_callback *callback)
{
    bool has_headers = headers && headers[0];
    respite_cancel_token_retain(cancel);
    auto call = [client, method = std::string(method ? method : ""), url = std::string(url ? url : ""), has_headers,
                 headers = std::string(has_headers ? headers : ""), body = std::string(data ? data : "", size),
                 cancel](respite_node_job *job) {
        job->response = respite_client_request_with(client, method.c_str(), url.c_str(),
                                                    has_headers ? headers.c_str() : nullptr, body.data(),
                                                    body.size(), cancel, &job->err);
        respite_cancel_token_free(cancel);
    };
    bool refused = !client;
    if (client && gate) {
        respite_error probe_err;
        memset(&probe_err, 0, sizeof probe_err);
        double retry_after = respite_gate_retry_after(gate, respite_now(), &probe_err);
        refused = probe_err.status == RESPITE_OK && retry_after > respite_node_refusal_margin;
    }
    if (!refused)
        return respite_node_submit(callback, std::move(call));
    respite_node_job job;
    memset(&job.err, 0, sizeof job.err);
    call(&job);
    Napi::Env env = callback->fn.Env();
    respite_node_call_back(env, callback->fn, &job.err, respite_node_job_result(env, &job), false);
}

void respite_node_sender_flush_start(respite_sender *sender, double timeout_seconds, respite_node_callback *callback)
{
    respite_node_submit(callback, [sender, timeout_seconds](respite_node_job *job) {
        job->value = respite_sender_flush(sender, timeout_seconds, &job->err);
    });
}

void respite_node_sender_close_start(respite_sender *sender, respite_node_callback *callback)
{
    respite_node_submit(callback,
                        [sender](respite_node_job *job) { job->value = respite_sender_close(sender, &job->err); });
}

/* For a finalizer: freeing closes first, which may wait close_timeout. */
void respite_node_sender_free_later(respite_sender *sender)
{
    if (!sender)
        return;
    respite_node_job *job = new respite_node_job();
    job->call = [sender](respite_node_job *) { respite_sender_free(sender); };
    job->detached = true;
    respite_node_pool_push(job);
}

respite_node_bytes respite_node_response_body(const respite_response *response)
{
    respite_node_bytes bytes = {0, 0};
    if (!response)
        return bytes;
    bytes.data = respite_response_body(response);
    bytes.size = respite_response_body_size(response);
    return bytes;
}

#endif /* RESPITE_NODE_JOBS_H */
