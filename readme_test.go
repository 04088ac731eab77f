package weft_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeProgram builds and runs the complete program in README.md, as
// written there, so that the first code a new user copies cannot rot.
func TestReadmeProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)```go\n(package main\n.*?)```").FindSubmatch(readme)
	require.NotNil(t, m, "README.md has no ```go block starting with package main")

	// go run resolves the program's imports in this module only if the
	// file lies inside it; testdata keeps it out of ./... patterns.
	require.NoError(t, os.MkdirAll("testdata", 0o755))
	dir, err := os.MkdirTemp("testdata", "readme-")
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = os.RemoveAll(dir)
		_ = os.Remove("testdata") // only if no other run uses it
	})
	main := filepath.Join(dir, "main.go")
	require.NoError(t, os.WriteFile(main, m[1], 0o644))

	goTool, err := exec.LookPath("go")
	require.NoError(t, err, "the go command, to build the README's program")
	out, err := exec.Command(goTool, "run", "./"+main).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "832040 1346269 [1 4 9] <nil>\n", string(out))
}
