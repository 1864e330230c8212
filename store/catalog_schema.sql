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
    explanation VARCHAR NOT NULL
);
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
