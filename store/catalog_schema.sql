-- The taskforge catalog: every cycle, input, diagnosis, gap and task, accepted or not.
CREATE TABLE IF NOT EXISTS cycles (
    cycle_id VARCHAR PRIMARY KEY,
    kind VARCHAR NOT NULL,
    params VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    attempts INTEGER NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    finished_at TIMESTAMPTZ,
    summary VARCHAR
);
CREATE TABLE IF NOT EXISTS quarantine (
    item_id VARCHAR PRIMARY KEY,
    cycle_id VARCHAR NOT NULL,
    stage VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    error_type VARCHAR NOT NULL,
    reason VARCHAR NOT NULL,
    infrastructure BOOLEAN NOT NULL,
    detail VARCHAR
);
CREATE TABLE IF NOT EXISTS episodes (
    episode_id VARCHAR PRIMARY KEY,
    cycle_id VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,
    family VARCHAR NOT NULL,
    source_format VARCHAR NOT NULL,
    source_file VARCHAR NOT NULL,
    n_steps INTEGER NOT NULL,
    n_segments INTEGER NOT NULL,
    success BOOLEAN NOT NULL,
    score DOUBLE,
    failure_origin VARCHAR NOT NULL
);
ALTER TABLE episodes ADD COLUMN IF NOT EXISTS graded BOOLEAN DEFAULT TRUE;
CREATE TABLE IF NOT EXISTS diagnoses (
    diagnosis_id VARCHAR PRIMARY KEY,
    cycle_id VARCHAR NOT NULL,
    episode_id VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,
    family VARCHAR NOT NULL,
    failure_mode VARCHAR NOT NULL,
    capability VARCHAR,
    evidence_steps INTEGER[] NOT NULL,
    signals VARCHAR,
    confidence DOUBLE NOT NULL,
    diagnoser VARCHAR NOT NULL,
    diagnoser_version VARCHAR NOT NULL,
    explanation VARCHAR NOT NULL,
    decisive_step INTEGER,
    agent VARCHAR
);
-- Catalogs made before diagnoses named their decisive step and agent gain the columns.
ALTER TABLE diagnoses ADD COLUMN IF NOT EXISTS decisive_step INTEGER;
ALTER TABLE diagnoses ADD COLUMN IF NOT EXISTS agent VARCHAR;
CREATE TABLE IF NOT EXISTS gaps (
    cycle_id VARCHAR NOT NULL,
    gap_id VARCHAR NOT NULL,
    family VARCHAR NOT NULL,
    capability VARCHAR NOT NULL,
    failure_mode VARCHAR NOT NULL,
    count INTEGER NOT NULL,
    share DOUBLE NOT NULL,
    severity DOUBLE NOT NULL,
    priority DOUBLE NOT NULL,
    example_episodes VARCHAR[] NOT NULL,
    PRIMARY KEY (cycle_id, gap_id)
);
ALTER TABLE gaps ADD COLUMN IF NOT EXISTS rate DOUBLE DEFAULT 0.0;
CREATE TABLE IF NOT EXISTS plan (
    cycle_id VARCHAR NOT NULL,
    family VARCHAR NOT NULL,
    capability VARCHAR NOT NULL,
    quota INTEGER NOT NULL,
    gap_ids VARCHAR[] NOT NULL,
    priority DOUBLE NOT NULL,
    PRIMARY KEY (cycle_id, family, capability)
);
CREATE TABLE IF NOT EXISTS tasks (
    task_id VARCHAR PRIMARY KEY,
    cycle_id VARCHAR NOT NULL,
    family VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    capability VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    reasons VARCHAR[] NOT NULL,
    lineage VARCHAR NOT NULL,
    shard VARCHAR
);
CREATE TABLE IF NOT EXISTS validations (
    task_id VARCHAR NOT NULL,
    "check" VARCHAR NOT NULL,
    position INTEGER NOT NULL,
    passed BOOLEAN NOT NULL,
    score DOUBLE,
    reason VARCHAR,
    detail VARCHAR,
    infrastructure_error BOOLEAN NOT NULL,
    duration_s DOUBLE NOT NULL,
    PRIMARY KEY (task_id, "check")
);
CREATE TABLE IF NOT EXISTS shards (
    path VARCHAR PRIMARY KEY,
    cycle_id VARCHAR NOT NULL,
    family VARCHAR NOT NULL,
    rows INTEGER NOT NULL,
    bytes BIGINT NOT NULL,
    sha256 VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS stage_times (
    cycle_id VARCHAR NOT NULL,
    stage VARCHAR NOT NULL,
    seconds DOUBLE NOT NULL,
    recorded_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (cycle_id, stage)
);
CREATE TABLE IF NOT EXISTS llm_calls (
    cycle_id VARCHAR NOT NULL,
    stage VARCHAR NOT NULL,
    subject VARCHAR NOT NULL,
    call_id VARCHAR NOT NULL,
    family VARCHAR NOT NULL,
    purpose VARCHAR NOT NULL,
    role VARCHAR NOT NULL,
    model VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    requests INTEGER NOT NULL,
    replayed INTEGER NOT NULL,
    repairs INTEGER NOT NULL,
    tokens_in BIGINT NOT NULL,
    tokens_out BIGINT NOT NULL,
    cost_usd DOUBLE,
    duration_s DOUBLE NOT NULL,
    error VARCHAR,
    PRIMARY KEY (cycle_id, stage, subject, call_id)
);
-- What an LLM call sent when its full input did not fit the role's window (NULL: the full input).
ALTER TABLE llm_calls ADD COLUMN IF NOT EXISTS view VARCHAR;
-- MinHash signatures of accepted tasks (what each asks), the index near-duplicate removal looks new tasks up in.
CREATE TABLE IF NOT EXISTS signatures (
    task_id VARCHAR PRIMARY KEY,
    family VARCHAR NOT NULL,
    signature BLOB NOT NULL
);
-- Release exports: rows per family, and every task a release left out (decontamination, near-duplicate) with why.
CREATE TABLE IF NOT EXISTS releases (
    version VARCHAR NOT NULL,
    family VARCHAR NOT NULL,
    rows INTEGER NOT NULL,
    removed INTEGER NOT NULL,
    PRIMARY KEY (version, family)
);
CREATE TABLE IF NOT EXISTS release_removals (
    version VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,
    family VARCHAR NOT NULL,
    "check" VARCHAR NOT NULL,
    reason VARCHAR NOT NULL,
    detail VARCHAR,
    PRIMARY KEY (version, task_id, "check")
);
-- SFT exports: every episode or builder demonstration considered, selected or not, with the reason and any regrade.
CREATE TABLE IF NOT EXISTS sft_examples (
    run_id VARCHAR NOT NULL,
    episode_id VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,
    family VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    source_file VARCHAR NOT NULL,
    selected BOOLEAN NOT NULL,
    reason VARCHAR NOT NULL,
    score DOUBLE,
    regraded_score DOUBLE,
    regrade VARCHAR NOT NULL,
    segments INTEGER NOT NULL,
    PRIMARY KEY (run_id, episode_id)
);
-- Each cycle's gaps against the previous diagnosing cycle (by start time): what improved, what regressed.
-- The rate (diagnoses per episode read) is compared, so cycles over different numbers of traces compare fairly;
-- a gap that disappeared is listed with count 0 as 'resolved'.
CREATE OR REPLACE VIEW gap_trends AS
WITH ordered AS (
    SELECT cycle_id, lag(cycle_id) OVER (ORDER BY started_at, cycle_id) AS previous_cycle
    FROM cycles WHERE kind IN ('cycle', 'diagnose')
),
paired AS (
    SELECT o.cycle_id, o.previous_cycle, cur.family, cur.capability, cur.failure_mode,
           cur.count, cur.rate, prev.count AS previous_count, prev.rate AS previous_rate
    FROM ordered o
    JOIN gaps cur ON cur.cycle_id = o.cycle_id
    LEFT JOIN gaps prev ON prev.cycle_id = o.previous_cycle AND prev.family = cur.family
        AND prev.capability = cur.capability AND prev.failure_mode = cur.failure_mode
    UNION ALL
    SELECT o.cycle_id, o.previous_cycle, prev.family, prev.capability, prev.failure_mode,
           0 AS count, 0.0 AS rate, prev.count AS previous_count, prev.rate AS previous_rate
    FROM ordered o
    JOIN gaps prev ON prev.cycle_id = o.previous_cycle
    WHERE NOT EXISTS (SELECT 1 FROM gaps cur WHERE cur.cycle_id = o.cycle_id AND cur.family = prev.family
                      AND cur.capability = prev.capability AND cur.failure_mode = prev.failure_mode)
)
SELECT cycle_id, previous_cycle, family, capability, failure_mode, count, rate, previous_count, previous_rate,
       round(rate - coalesce(previous_rate, 0.0), 6) AS change,
       CASE WHEN previous_cycle IS NULL THEN 'first'
            WHEN previous_count IS NULL THEN 'new'
            WHEN count = 0 THEN 'resolved'
            WHEN rate < previous_rate - 1e-9 THEN 'improved'
            WHEN rate > previous_rate + 1e-9 THEN 'regressed'
            ELSE 'unchanged' END AS trend
FROM paired;
CREATE TABLE IF NOT EXISTS infrastructure_events (
    cycle_id VARCHAR NOT NULL,
    stage VARCHAR NOT NULL,
    batch VARCHAR NOT NULL,
    attempt INTEGER NOT NULL,
    error VARCHAR NOT NULL,
    recovered BOOLEAN NOT NULL,
    PRIMARY KEY (cycle_id, stage, batch, attempt)
);
