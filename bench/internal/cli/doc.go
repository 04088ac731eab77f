// Package cli is weftbench's command: flags in, a results table out. It
// lives apart from package main so that tests, and the nested module's
// command with more contenders, can run it.
package cli
