package main

import (
	"os"

	"github.com/weftrt/weft/bench/contenders/internal/peers"
	"github.com/weftrt/weft/bench/internal/cli"
)

func main() {
	peers.Register()
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
