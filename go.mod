module github.com/weftrt/weft

go 1.26.8

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
	golang.org/x/sync v0.23.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
