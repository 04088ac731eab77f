// Package contender defines what the harness measures weft against: each
// contender is a way to run concurrent Go work, started once per case with
// a number of workers, and able to do some of: run a workload's plain
// sequential code, fork through a bench.Forker, run a weft kernel, or take
// fire-and-forget jobs. Suites pick the contenders that can run them.
//
// Contenders with third-party dependencies live in the nested module
// bench/contenders and join the harness through Register, so that the core
// module's go.mod names none of them.
package contender
