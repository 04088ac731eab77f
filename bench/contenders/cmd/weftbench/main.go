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
