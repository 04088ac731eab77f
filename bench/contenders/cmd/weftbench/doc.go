// Command weftbench is bench/cmd/weftbench with the third-party contenders
// of this module registered too (ants, pond, conc). Run it from
// bench/contenders:
//
//	go run ./cmd/weftbench
package main
