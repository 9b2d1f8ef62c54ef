-- The worked questions of docs/guide/sql.md, shipped with the app (the Query view's examples) and run
-- by the tests on a job of three ranks: two PyTorch snapshots (cuda:0) and an arena/pool/plan trace.
-- Each starts at a "-- name:" line; the "-- question:" line says what it answers.

-- name: top-sites-at-peak
-- question: Which sites hold the most of cuda:0 at its peak on rank 0? (the rows of `arenascope sites --at peak`)
SELECT coalesce(s.label, '(no site)') AS label, sum(p.bytes) AS bytes, count(*) AS allocations
FROM peak_of('cuda:0') p
LEFT JOIN sites s ON s.rank = p.rank AND s.memory = p.memory AND s.site = p.site
WHERE p.rank = 0
GROUP BY p.site, s.label
ORDER BY bytes DESC, allocations DESC, label;

-- name: peak-allocation
-- question: Which allocation made each memory's peak, and from where?
SELECT m.rank, m.name AS memory, m.peak_bytes, a.bytes, a.alloc_ns, coalesce(s.label, '(no site)') AS site
FROM memories m
JOIN allocations a ON a.rank = m.rank AND a.memory = m.memory AND a.alloc_event = m.peak_event
LEFT JOIN sites s ON s.rank = a.rank AND s.memory = a.memory AND s.site = a.site
ORDER BY m.rank, m.memory;

-- name: leaks
-- question: What was never freed, by site? (`arenascope sites --leaks`)
SELECT a.rank, m.name AS memory, coalesce(s.label, '(no site)') AS site, sum(a.bytes) AS bytes, count(*) AS allocations
FROM allocations a
JOIN memories m ON m.rank = a.rank AND m.memory = a.memory
LEFT JOIN sites s ON s.rank = a.rank AND s.memory = a.memory AND s.site = a.site
WHERE NOT a.freed
GROUP BY a.rank, m.name, a.site, s.label
ORDER BY a.rank, memory, bytes DESC, allocations DESC, site;

-- name: temporaries
-- question: Which sites make allocations that live under a millisecond? (`arenascope sites --temporary`)
SELECT a.rank, m.name AS memory, coalesce(s.label, '(no site)') AS site, count(*) AS allocations,
       sum(a.bytes) AS bytes, median(a.lifetime_ns) AS median_lifetime_ns
FROM allocations a
JOIN memories m ON m.rank = a.rank AND m.memory = a.memory
LEFT JOIN sites s ON s.rank = a.rank AND s.memory = a.memory AND s.site = a.site
WHERE a.freed AND a.lifetime_ns < 1000000
GROUP BY a.rank, m.name, a.site, s.label
ORDER BY a.rank, memory, bytes DESC, allocations DESC, site;

-- name: pool-hit-rate-by-size
-- question: How often does each pool bin serve a request from a held block?
SELECT p.rank, m.name AS pool, p.bin, max(p.bytes) AS bin_bytes, count(*) AS requests,
       sum(p.hit::INTEGER) AS hits, round(avg(p.hit::INTEGER), 4) AS hit_rate,
       sum(p.bytes - p.requested_bytes) AS rounding_bytes
FROM pool_requests p
JOIN memories m ON m.rank = p.rank AND m.memory = p.memory
GROUP BY p.rank, m.name, p.bin
ORDER BY p.rank, pool, p.bin;

-- name: rank-imbalance
-- question: How far is each rank's peak from the job's mean, memory by memory?
SELECT name AS memory, rank, peak_bytes,
       round(peak_bytes / avg(peak_bytes) OVER (PARTITION BY name), 4) AS of_mean,
       max(peak_bytes) OVER (PARTITION BY name) - min(peak_bytes) OVER (PARTITION BY name) AS spread_bytes
FROM memories
ORDER BY memory, rank;

-- name: live-at-instant
-- question: How much of each memory is live 100 ms into the trace?
SELECT l.rank, m.name AS memory, count(*) AS allocations, sum(l.bytes) AS bytes
FROM live_at(100000000) l
JOIN memories m ON m.rank = l.rank AND m.memory = l.memory
GROUP BY l.rank, m.name
ORDER BY l.rank, memory;

-- name: usage-over-time
-- question: What is the most each memory held in each 10 ms of the trace?
SELECT rank, memory, time_ns // 10000000 * 10 AS ms, max(used) AS most_used_bytes, count(*) AS events
FROM events
WHERE memory IS NOT NULL
GROUP BY rank, memory, ms
ORDER BY rank, memory, ms;

-- name: size-histogram
-- question: How are allocations spread over power-of-two sizes, and how many bytes does each size hold?
SELECT rank, memory, (1::BIGINT << floor(log2(greatest(bytes, 1)))::INTEGER) AS at_least_bytes,
       count(*) AS allocations, sum(bytes) AS bytes
FROM allocations
GROUP BY ALL
ORDER BY rank, memory, at_least_bytes;

-- name: scope-durations
-- question: Which scopes take longest, and how often do they run?
SELECT rank, memory, name, count(*) AS executions, sum(duration_ns) AS total_ns, max(duration_ns) AS longest_ns,
       any_value(params) AS params_of_one
FROM scopes
GROUP BY rank, memory, name
ORDER BY total_ns DESC NULLS LAST, name;

-- name: frames-at-peak-inclusive
-- question: Which frames are on the stacks of what is live at rank 0's cuda:0 peak, callers included? (a walk up the stack trie)
WITH RECURSIVE peak AS (
    SELECT rank, stack, bytes FROM peak_of('cuda:0') WHERE rank = 0 AND stack IS NOT NULL
), up(rank, node, bytes, id) AS (
    SELECT p.rank, p.stack, p.bytes, row_number() OVER () FROM peak p
    UNION ALL
    SELECT u.rank, st.parent, u.bytes, u.id FROM up u JOIN stacks st ON st.rank = u.rank AND st.stack = u.node
    WHERE st.parent IS NOT NULL
)
SELECT f.function, f.file, f.line, sum(u.bytes) AS inclusive_bytes, count(DISTINCT u.id) AS allocations
FROM up u
JOIN stacks st ON st.rank = u.rank AND st.stack = u.node
JOIN frames f ON f.rank = st.rank AND f.frame = st.frame
WHERE NOT f.internal
GROUP BY f.function, f.file, f.line
ORDER BY inclusive_bytes DESC, f.function
LIMIT 20;
