/* Gates shared by a host's processes (docs/spec.md section 9): the file,
 * its slots, and each process's attachments to them.
 *
 * The file is a header page, then RESPITE_SHARED_GATE_SLOTS slots; a slot is
 * its name and the settings it was made with, then a gate_state whose
 * arrays are at their maxima (gate.c runs the one state machine on it). The
 * first opener creates the file exclusively and publishes the magic last;
 * slots are claimed under a robust process-shared mutex in the header, and
 * a claim is published (release) only once the slot is whole, so a process
 * that dies while claiming leaves a free slot. */
#include "shared_gate_file.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_MAGIC UINT64_C(0x4745544950534552) /* "RESPITEG" in the file (little-endian) */
#define HEADER_SIZE 4096
#define PAGE_ROUND(n) (((n) + 4095) / 4096 * 4096)
/* H4 compares every gate setting but shared_path and name (the last two). */
#define GATE_ROWS (RESPITE_SETTING_GATE_SHARED_PATH - RESPITE_SETTING_FIRST_GATE)
#define OPEN_WAIT_SECONDS 1.0

typedef struct shared_header {
    _Atomic uint64_t magic; /* written last by the creator */
    uint32_t layout_version;
    uint32_t header_size;
    uint64_t slot_size;
    uint32_t slot_count;
    uint32_t unused;
    _Alignas(64) pthread_mutex_t claim_lock; /* robust, process-shared: slot claims */
} shared_header;

typedef struct slot_head {
    _Atomic uint32_t claimed; /* 1 once name, settings and state are set */
    uint32_t unused;
    char name[RESPITE_NAME_MAX];
    double settings[GATE_ROWS]; /* H4: the values it was made with, in table order */
} slot_head;

#define SLOT_HEAD_ROOM ((sizeof(slot_head) + RESPITE_CACHE_LINE - 1) / RESPITE_CACHE_LINE * RESPITE_CACHE_LINE)
#define SLOT_SIZE PAGE_ROUND(SLOT_HEAD_ROOM + gate_state_size(GATE_WINDOW_MAX, GATE_PROBES_MAX))
#define FILE_SIZE ((size_t)HEADER_SIZE + (size_t)RESPITE_SHARED_GATE_SLOTS * SLOT_SIZE)
_Static_assert(sizeof(shared_header) <= HEADER_SIZE, "the header fits its page");
_Static_assert(RESPITE_SETTING_GATE_SHARED_PATH == RESPITE_SETTING_GATE_NAME - 1, "shared_path and name end the table");

struct respite_shared_attachment {
    respite_striped_counters counters; /* first: cache-line aligned */
    struct respite_shared_attachment *next;
    dev_t dev;
    ino_t ino;
    void *map;
    slot_head *slot;
    gate_state *state;
    int refs;                  /* handles on it; guarded by registry_lock */
    pthread_mutex_t fold_lock; /* guards folded */
    int64_t folded[COUNT_FIELDS];
};

/* Attachments of this process, by file and gate name. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static respite_shared_attachment *registry;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* -------------------------------------------------------------- layout */

static slot_head *slot_at(void *map, int i)
{
    return (slot_head *)(void *)((char *)map + HEADER_SIZE + (size_t)i * SLOT_SIZE);
}

static gate_state *slot_state(slot_head *slot)
{
    return (gate_state *)(void *)((char *)slot + SLOT_HEAD_ROOM);
}

static void settings_values(const respite_settings *settings, double values[GATE_ROWS])
{
    for (int i = 0; i < GATE_ROWS; i++)
        values[i] = respite_setting_number(settings, (respite_setting_id)(RESPITE_SETTING_FIRST_GATE + i));
}

/* H4: RESPITE_OK, or invalid_argument listing every compared setting whose
 * value differs. */
static int check_settings(const slot_head *slot, const respite_settings *settings, const char *path,
                          respite_error *err)
{
    double wanted[GATE_ROWS];
    settings_values(settings, wanted);
    char has[RESPITE_ERROR_MESSAGE_MAX] = "", asks[RESPITE_ERROR_MESSAGE_MAX] = "";
    size_t has_len = 0, asks_len = 0;
    int differences = 0, total = 0;
    for (int i = 0; i < GATE_ROWS; i++)
        total += slot->settings[i] != wanted[i];
    for (int i = 0; i < GATE_ROWS; i++) {
        if (slot->settings[i] == wanted[i])
            continue;
        const respite_setting_info *row = respite_setting_at(RESPITE_SETTING_FIRST_GATE + i);
        const char *joint = differences == 0 ? "" : differences == total - 1 ? " and " : ", ";
        char a[40], b[40];
        if (row->type == RESPITE_SETTING_BOOLEAN) {
            snprintf(a, sizeof a, "%s", slot->settings[i] != 0.0 ? "true" : "false");
            snprintf(b, sizeof b, "%s", wanted[i] != 0.0 ? "true" : "false");
        } else {
            respite_format_number(slot->settings[i], a, sizeof a);
            respite_format_number(wanted[i], b, sizeof b);
        }
        int n = snprintf(has + has_len, sizeof has - has_len, "%s%s %s", joint, row->name, a);
        has_len = n > 0 && (size_t)n < sizeof has - has_len ? has_len + (size_t)n : sizeof has - 1;
        n = snprintf(asks + asks_len, sizeof asks - asks_len, "%s%s %s", joint, row->name, b);
        asks_len = n > 0 && (size_t)n < sizeof asks - asks_len ? asks_len + (size_t)n : sizeof asks - 1;
        differences++;
    }
    if (!differences)
        return RESPITE_OK;
    return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "gate \"%s\" in %s has %s; these settings ask for %s",
                        slot->name, path, has, asks);
}

/* ---------------------------------------------------------------- file */

static int fail_file(const char *path, const char *what, int error, respite_error *err)
{
    return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "cannot %s shared gate file %s: %s", what, path,
                        strerror(error));
}

static void lock_robust(pthread_mutex_t *lock)
{
    if (pthread_mutex_lock(lock) == EOWNERDEAD)
        pthread_mutex_consistent(lock); /* a claim is published only when whole: nothing to repair */
}

/* H2: sizes a file this process created, writes its header and publishes
 * the magic last. */
static void *create_file(int fd, const char *path, respite_error *err)
{
    if (ftruncate(fd, (off_t)FILE_SIZE) != 0) {
        fail_file(path, "size", errno, err);
        return NULL;
    }
    void *map = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        fail_file(path, "map", errno, err);
        return NULL;
    }
    shared_header *h = map;
    h->layout_version = RESPITE_SHARED_GATE_LAYOUT_VERSION;
    h->header_size = HEADER_SIZE;
    h->slot_size = SLOT_SIZE;
    h->slot_count = RESPITE_SHARED_GATE_SLOTS;
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    int rc = pthread_mutex_init(&h->claim_lock, &attr);
    pthread_mutexattr_destroy(&attr);
    if (rc != 0) {
        munmap(map, FILE_SIZE);
        fail_file(path, "make the lock of", rc, err);
        return NULL;
    }
    atomic_store_explicit(&h->magic, FILE_MAGIC, memory_order_release);
    return map;
}

/* The first bytes of the header, as written on disk. */
typedef struct header_fields {
    uint64_t magic;
    uint32_t layout_version;
    uint32_t header_size;
    uint64_t slot_size;
    uint32_t slot_count;
} header_fields;

/* H1, H2: waits (bounded) for another opener to publish the magic, checks
 * the layout against this library's and maps the file. */
static void *open_file(int fd, const char *path, respite_error *err)
{
    header_fields f;
    memset(&f, 0, sizeof f);
    double deadline = respite_now() + OPEN_WAIT_SECONDS;
    for (;;) {
        ssize_t n = pread(fd, &f, sizeof f, 0);
        if (n < 0) {
            fail_file(path, "read", errno, err);
            return NULL;
        }
        if (n >= (ssize_t)sizeof f.magic && f.magic != 0)
            break;
        if (respite_now() >= deadline) {
            respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                         "shared gate file %s is not initialised (its creator may have died while creating it; "
                         "remove the file)",
                         path);
            return NULL;
        }
        respite_sleep_seconds(0.001);
    }
    if (f.magic != FILE_MAGIC) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "shared gate file %s is not a respite gate file", path);
        return NULL;
    }
    if (f.layout_version != RESPITE_SHARED_GATE_LAYOUT_VERSION) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                     "shared gate file %s has layout version %u; this library reads version %d", path,
                     (unsigned)f.layout_version, RESPITE_SHARED_GATE_LAYOUT_VERSION);
        return NULL;
    }
    if (f.header_size != HEADER_SIZE || f.slot_size != SLOT_SIZE || f.slot_count != RESPITE_SHARED_GATE_SLOTS) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                     "shared gate file %s has a %u-byte header and %u slots of %llu bytes; this library's are "
                     "a %d-byte header and %d slots of %llu bytes",
                     path, (unsigned)f.header_size, (unsigned)f.slot_count, (unsigned long long)f.slot_size,
                     HEADER_SIZE, RESPITE_SHARED_GATE_SLOTS, (unsigned long long)SLOT_SIZE);
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        fail_file(path, "read", errno, err);
        return NULL;
    }
    if ((size_t)st.st_size != FILE_SIZE) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "shared gate file %s has %lld bytes; this library's have %zu",
                     path, (long long)st.st_size, (size_t)FILE_SIZE);
        return NULL;
    }
    void *map = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        fail_file(path, "map", errno, err);
        return NULL;
    }
    /* Pairs with the creator's release: its header is whole. */
    (void)atomic_load_explicit(&((shared_header *)map)->magic, memory_order_acquire);
    return map;
}

/* H3: the slot named `name`, claimed from the free ones when new. */
static slot_head *claim_slot(void *map, const respite_settings *settings, const char *name, const char *path,
                             respite_error *err)
{
    shared_header *h = map;
    lock_robust(&h->claim_lock);
    slot_head *found = NULL, *free_slot = NULL;
    for (int i = 0; i < RESPITE_SHARED_GATE_SLOTS && !found; i++) {
        slot_head *slot = slot_at(map, i);
        if (!atomic_load_explicit(&slot->claimed, memory_order_acquire)) {
            if (!free_slot)
                free_slot = slot;
        } else if (strncmp(slot->name, name, RESPITE_NAME_MAX) == 0) {
            found = slot;
        }
    }
    if (!found && free_slot) {
        respite_copy_text(free_slot->name, sizeof free_slot->name, name);
        settings_values(settings, free_slot->settings);
        if (respite_gate_state_init(slot_state(free_slot), settings, GATE_WINDOW_MAX, GATE_PROBES_MAX, true, err) ==
            RESPITE_OK) {
            atomic_store_explicit(&free_slot->claimed, 1, memory_order_release);
            found = free_slot;
        }
    } else if (!found) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                     "shared gate file %s has no free slot for gate \"%s\" (%d gates already)", path, name,
                     RESPITE_SHARED_GATE_SLOTS);
    }
    pthread_mutex_unlock(&h->claim_lock);
    return found;
}

/* --------------------------------------------------------- attachments */

static void fold_locked(respite_shared_attachment *a)
{
    for (int i = 0; i < COUNT_FIELDS; i++) {
        int64_t sum = respite_striped_sum(&a->counters, i);
        if (sum != a->folded[i])
            atomic_fetch_add_explicit(&a->state->totals[i], sum - a->folded[i], memory_order_relaxed);
        a->folded[i] = sum;
    }
}

/* fork(): the locks are taken around it so the child inherits them free;
 * the child's stripes start from what the parent had counted, which stays
 * the parent's to fold (H11). */
static void before_fork(void)
{
    pthread_mutex_lock(&registry_lock);
    for (respite_shared_attachment *a = registry; a; a = a->next)
        pthread_mutex_lock(&a->fold_lock);
}

static void after_fork_parent(void)
{
    for (respite_shared_attachment *a = registry; a; a = a->next)
        pthread_mutex_unlock(&a->fold_lock);
    pthread_mutex_unlock(&registry_lock);
}

static void after_fork_child(void)
{
    for (respite_shared_attachment *a = registry; a; a = a->next) {
        for (int i = 0; i < COUNT_FIELDS; i++)
            a->folded[i] = respite_striped_sum(&a->counters, i);
        pthread_mutex_unlock(&a->fold_lock);
    }
    pthread_mutex_unlock(&registry_lock);
}

static void register_atfork(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

respite_shared_attachment *respite_shared_attach(const respite_settings *settings, respite_error *err)
{
    const char *path = respite_setting_text(settings, RESPITE_SETTING_GATE_SHARED_PATH);
    const char *name = respite_setting_text(settings, RESPITE_SETTING_GATE_NAME);
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&registry_lock);
    respite_shared_attachment *a = NULL;
    void *map = NULL;
    bool created = true;
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) {
        created = false;
        fd = open(path, O_RDWR | O_CLOEXEC);
    }
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        fail_file(path, "open", errno, err);
        goto done;
    }
    for (a = registry; a; a = a->next) {
        if (a->dev == st.st_dev && a->ino == st.st_ino && strncmp(a->slot->name, name, RESPITE_NAME_MAX) == 0) {
            if (check_settings(a->slot, settings, path, err) != RESPITE_OK)
                a = NULL;
            else
                a->refs++;
            goto done;
        }
    }
    map = created ? create_file(fd, path, err) : open_file(fd, path, err);
    if (!map) {
        if (created)
            unlink(path); /* never leave a file another opener would wait for in vain */
        goto done;
    }
    slot_head *slot = claim_slot(map, settings, name, path, err);
    if (!slot || check_settings(slot, settings, path, err) != RESPITE_OK)
        goto done;
    size_t size = (sizeof *a + RESPITE_CACHE_LINE - 1) / RESPITE_CACHE_LINE * RESPITE_CACHE_LINE;
    a = aligned_alloc(RESPITE_CACHE_LINE, size);
    if (!a) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a gate");
        goto done;
    }
    memset(a, 0, size);
    respite_striped_init(&a->counters);
    a->dev = st.st_dev;
    a->ino = st.st_ino;
    a->map = map;
    a->slot = slot;
    a->state = slot_state(slot);
    a->refs = 1;
    pthread_mutex_init(&a->fold_lock, NULL);
    a->next = registry;
    registry = a;
    map = NULL;
done:
    if (map)
        munmap(map, FILE_SIZE);
    if (fd >= 0)
        close(fd);
    pthread_mutex_unlock(&registry_lock);
    return a;
}

gate_state *respite_shared_state(respite_shared_attachment *a)
{
    return a->state;
}

respite_striped_counters *respite_shared_counters(respite_shared_attachment *a)
{
    return &a->counters;
}

void respite_shared_fold(respite_shared_attachment *a)
{
    pthread_mutex_lock(&a->fold_lock);
    fold_locked(a);
    pthread_mutex_unlock(&a->fold_lock);
}

void respite_shared_detach(respite_shared_attachment *a)
{
    pthread_mutex_lock(&registry_lock);
    respite_shared_fold(a);
    if (--a->refs == 0) {
        for (respite_shared_attachment **p = &registry; *p; p = &(*p)->next) {
            if (*p == a) {
                *p = a->next;
                break;
            }
        }
        munmap(a->map, FILE_SIZE);
        pthread_mutex_destroy(&a->fold_lock);
        respite_striped_destroy(&a->counters);
        free(a);
    }
    pthread_mutex_unlock(&registry_lock);
}

/* ------------------------------------------------------------- reading */

int respite_shared_gate_capacity(void)
{
    return RESPITE_SHARED_GATE_SLOTS;
}

/* H12: one slot's gate as at `now`, from a copy (the slot is not changed). */
static void read_slot(slot_head *slot, gate_state *copy, size_t size, double now, respite_shared_gate_info *out)
{
    gate_state *s = slot_state(slot);
    respite_gate_state_lock(s);
    memcpy(copy, s, size);
    pthread_mutex_unlock(&s->lock);
    double t = respite_gate_state_advance(copy, now);
    memset(out, 0, sizeof *out);
    memcpy(out->name, slot->name, sizeof out->name);
    out->name[sizeof out->name - 1] = '\0';
    out->state = copy->state;
    if (copy->state == RESPITE_GATE_OPEN)
        out->pause_left = copy->recover_never ? INFINITY : copy->until - t;
    out->window_failures =
        respite_failure_window_prune(&copy->window, gate_state_times(copy), t, copy->window_seconds);
    out->generation = (int64_t)copy->generation;
    out->probes_outstanding = copy->probes_outstanding;
    int64_t counts[COUNT_FIELDS];
    for (int i = 0; i < COUNT_FIELDS; i++)
        counts[i] = atomic_load_explicit(&copy->totals[i], memory_order_relaxed);
    respite_gate_state_stats(copy, counts, &out->stats);
}

int respite_shared_gates_read(const char *path, double now, respite_shared_gate_info *out, int capacity, int *count,
                              respite_error *err)
{
    if (!path)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "path must be a shared gate file's path (got NULL)");
    if (!count)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "count must point to an int (got NULL)");
    if (capacity < 0 || (capacity > 0 && !out))
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "out must hold capacity entries (got capacity %d and %s)", capacity,
                            out ? "an array" : "NULL");
    if (respite_check_time(now, "now", err) != RESPITE_OK)
        return RESPITE_E_INVALID_TIME;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return fail_file(path, "open", errno, err);
    void *map = open_file(fd, path, err);
    close(fd);
    if (!map)
        return RESPITE_E_INVALID_ARGUMENT; /* open_file's every error */
    size_t size = gate_state_size(GATE_WINDOW_MAX, GATE_PROBES_MAX);
    gate_state *copy = aligned_alloc(RESPITE_CACHE_LINE, size);
    if (!copy) {
        munmap(map, FILE_SIZE);
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory reading shared gate file %s", path);
    }
    int n = 0;
    for (int i = 0; i < RESPITE_SHARED_GATE_SLOTS; i++) {
        slot_head *slot = slot_at(map, i);
        if (!atomic_load_explicit(&slot->claimed, memory_order_acquire))
            continue;
        if (n < capacity)
            read_slot(slot, copy, size, now, &out[n]);
        n++;
    }
    free(copy);
    munmap(map, FILE_SIZE);
    *count = n;
    return RESPITE_OK;
}
