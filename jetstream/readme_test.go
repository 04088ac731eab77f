package weftjs_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The library example at the top of README.md is Example's body, line for
// line, so that the README's program runs as written: Example runs it.
func TestReadmeExampleIsExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	example, err := os.ReadFile("example_worker_test.go")
	require.NoError(t, err)
	fromReadme := between(t, string(readme), "```go\npackage main\n", "func main() {\n", "\n}\n```")
	fromExample := between(t, string(example), "", "func Example() {\n", "\n\t// Unordered output:")
	require.Equal(t, fromExample, fromReadme, "README.md's main and Example differ")
}

// between returns the text of s after anchor, then start, up to end.
func between(t *testing.T, s, anchor, start, end string) string {
	t.Helper()
	_, s, ok := strings.Cut(s, anchor)
	require.True(t, ok, "no %q", anchor)
	_, s, ok = strings.Cut(s, start)
	require.True(t, ok, "no %q", start)
	s, _, ok = strings.Cut(s, end)
	require.True(t, ok, "no %q", end)
	return s
}
