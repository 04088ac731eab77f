package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"github.com/weftrt/weft/bench/internal/result"
)

// Files written by WriteDir besides the plots.
const (
	BenchfmtFile = "results.txt"
	JSONFile     = "summary.json"
	TableFile    = "table.txt"
	MarkdownFile = "table.md"
)

// WriteDir writes every output of the run into dir, creating it, and
// returns the paths written. Everything is rendered before the first file
// is written, so a failure leaves no half set of files behind.
func WriteDir(dir string, run *result.Run) ([]string, error) {
	files, err := render(run)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, f.data, 0o644); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

type file struct {
	name string
	data []byte
}

func render(run *result.Run) ([]file, error) {
	writers := []struct {
		name  string
		write func(io.Writer, *result.Run) error
	}{{BenchfmtFile, WriteBenchfmt}, {JSONFile, WriteJSON}, {TableFile, WriteTable}, {MarkdownFile, WriteMarkdown}}
	var files []file
	for _, w := range writers {
		var b bytes.Buffer
		if err := w.write(&b, run); err != nil {
			return nil, err
		}
		files = append(files, file{w.name, b.Bytes()})
	}
	for _, p := range Plots(run) {
		files = append(files, file{p.File, []byte(p.SVG)})
	}
	return files, nil
}
