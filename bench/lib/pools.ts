/**
 * How long a bench-side pool (the runner's, the baselines') keeps an idle connection. The runner, the baselines and
 * Portico share one PostgreSQL's connection limit (100 by default): pools of 40 kept open by a scenario that is over
 * left the next scenario's fresh Portico short (a full run's AuthZEN scenario answered a 500 when PostgreSQL refused
 * it a connection). Portico's own pool keeps its connections, as in production.
 */
export const BENCH_IDLE_SECONDS = 5;
