// Command weftbench is bench/cmd/weftbench with the third-party contenders
// of this module registered too (ants, pond, conc). Run it from
// bench/contenders:
//
//	go run ./cmd/weftbench
package main

import (
	"os"

	"github.com/weftrt/weft/bench/contenders"
	"github.com/weftrt/weft/bench/internal/cli"
)

func main() {
	contenders.Register()
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
