/* The one script every exchange runs (docs/spec.md F3-F9), atomically in
 * Redis, on Redis's clock (TIME): no host's clock is compared with
 * another's.
 *
 * KEYS: 1 state (hash: paused, pause, epoch, opened), 2 hosts (hash: host ->
 * when its gate last opened, ms), 3 pause (the fleet's pause: PX its
 * length), 4 probe (the probe lease: the holder's id, PX the lease).
 * ARGV: 1 host, 2 opened (0/1), 3 outcome ("", success, failure),
 * 4 want_probe (0/1), 5 probe_admitted (0/1), 6 window, 7 quorum, 8 R,
 * 9 M, 10 Rmax, 11 short lease, 12 probe lease, 13 keep (durations in ms),
 * 14 the channel that an exchange which changed the fleet's state (paused
 * it, or settled its probe) publishes the host's id on (F13).
 * Reply: {paused, pause_left_ms, holder, epoch, hosts_opened, pause_ms}. */
#include "fleet_internal.h"

const char fleet_script[] =
    "local t = redis.call('TIME')\n"
    "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
    "local host = ARGV[1]\n"
    "local window, quorum = tonumber(ARGV[6]), tonumber(ARGV[7])\n"
    "local r, m, rmax = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])\n"
    "local paused = redis.call('HGET', KEYS[1], 'paused') == '1'\n"
    "local pause = tonumber(redis.call('HGET', KEYS[1], 'pause') or r)\n"
    "local opened = tonumber(redis.call('HGET', KEYS[1], 'opened') or 0)\n"
    "local holder = redis.call('GET', KEYS[4])\n"
    "local changed = false\n"
    /* F9: the probe's outcome counts only from the host holding the lease */
    "if ARGV[3] ~= '' and holder == host then\n"
    "  redis.call('DEL', KEYS[4])\n"
    "  holder = false\n"
    "  redis.call('HINCRBY', KEYS[1], 'epoch', 1)\n"
    "  changed = true\n"
    "  if ARGV[3] == 'success' then\n"
    "    paused, pause = false, r\n"
    "    redis.call('DEL', KEYS[2], KEYS[3])\n"
    "  else\n"
    "    if m > 1 then pause = math.min(pause * m, rmax) end\n"
    "    redis.call('SET', KEYS[3], host, 'PX', math.max(1, math.floor(pause)))\n"
    "  end\n"
    "end\n"
    /* F4: openings within the window, one per host; a quorum pauses */
    "if ARGV[2] == '1' then redis.call('HSET', KEYS[2], host, now) end\n"
    "local rows = redis.call('HGETALL', KEYS[2])\n"
    "local hosts = 0\n"
    "for i = 1, #rows, 2 do\n"
    "  if tonumber(rows[i + 1]) > now - window then hosts = hosts + 1\n"
    "  else redis.call('HDEL', KEYS[2], rows[i]) end\n"
    "end\n"
    "if not paused and hosts >= quorum then\n"
    "  paused, pause, opened = true, r, hosts\n"
    "  redis.call('SET', KEYS[3], host, 'PX', math.max(1, math.floor(pause)))\n"
    "  redis.call('DEL', KEYS[2])\n"
    "  redis.call('HINCRBY', KEYS[1], 'epoch', 1)\n"
    "  changed = true\n"
    "end\n"
    "if not paused then opened = hosts end\n"
    "local left = redis.call('PTTL', KEYS[3])\n"
    "if left < 0 then left = 0 end\n"
    /* F7, F8: one probe fleet-wide, a lease */
    "if paused and left == 0 then\n"
    "  if holder == host and ARGV[5] == '1' then\n"
    "    redis.call('PEXPIRE', KEYS[4], ARGV[12])\n"
    "  elseif not holder and ARGV[4] == '1' then\n"
    "    redis.call('SET', KEYS[4], host, 'PX', ARGV[11])\n"
    "    holder = host\n"
    "  end\n"
    "end\n"
    "redis.call('HSET', KEYS[1], 'paused', paused and '1' or '0', 'pause', pause, 'opened', opened)\n"
    "redis.call('PEXPIRE', KEYS[1], ARGV[13])\n"
    "redis.call('PEXPIRE', KEYS[2], ARGV[13])\n"
    "local epoch = tonumber(redis.call('HGET', KEYS[1], 'epoch') or 0)\n"
    "if changed then redis.call('PUBLISH', ARGV[14], host) end\n"
    "return {paused and 1 or 0, left, holder or '', epoch, opened, math.floor(pause)}\n";
