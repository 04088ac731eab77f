// Package suite holds the harness's suites: fork-join, tree-sum, loops,
// efficiency and admission. A suite is a list of workloads; a workload knows which
// contenders can run it and how to measure one repetition on a started
// contender. Planning a suite turns workloads, contenders and worker
// counts into runner cases.
package suite
