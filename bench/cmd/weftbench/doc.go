// Command weftbench runs weft beside sequential Go and the usual Go
// concurrency idioms, and prints what each costs on this machine.
//
//	go run ./bench/cmd/weftbench                 # every suite, about four minutes on 2 cores
//	go run ./bench/cmd/weftbench -out results    # also benchfmt, JSON, Markdown and SVG files
//	go run ./bench/cmd/weftbench -markdown t.md  # also the tables as Markdown, for docs/figures.md
//	go run ./bench/cmd/weftbench -h              # the flags
//
// docs/benchmarks.md explains the suites and how to read the table.
package main
