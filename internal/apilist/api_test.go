package apilist_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/internal/apilist"
)

var update = flag.Bool("update", false, "rewrite the listings under api/ from the code")

// The exported API of every module is checked in under api/, one file a
// module (api/weft.txt for the root module, api/jetstream.txt, ...). A
// change to an exported name, a signature or a struct's exported fields
// that does not update its listing in the same commit fails here: run
// `go test ./internal/apilist -update` and commit the listing with a line
// in CHANGELOG.md, since code outside the repository has to follow.
func TestAPIListingsAreUpToDate(t *testing.T) {
	root := filepath.Join("..", "..")
	mods, err := apilist.Modules(root)
	require.NoError(t, err)
	require.NotEmpty(t, mods)
	for _, m := range mods {
		lines, err := apilist.List(root, m)
		require.NoError(t, err, m.Path)
		got := strings.Join(lines, "\n") + "\n"
		file := filepath.Join(root, "api", listingName(m)+".txt")
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
			require.NoError(t, os.WriteFile(file, []byte(got), 0o644))
			continue
		}
		want, err := os.ReadFile(file)
		require.NoError(t, err, "no listing for module %s: run go test ./internal/apilist -update", m.Path)
		require.Equal(t, string(want), got,
			"the exported API of %s differs from %s: if the change is meant, run go test ./internal/apilist -update and say what changed in CHANGELOG.md", m.Path, file)
	}
}

// A listing names each exported function with its signature, each type
// with its exported fields, and leaves unexported names out.
func TestListShowsSignaturesAndFieldsOnly(t *testing.T) {
	lines, err := apilist.List(filepath.Join("..", ".."), apilist.Module{Dir: ".", Path: "github.com/weftrt/weft"})
	require.NoError(t, err)
	text := strings.Join(lines, "\n")
	require.Contains(t, text, "pkg github.com/weftrt/weft/par, func ForOn(ctx context.Context, p *scheduler.Pool, n int, body func(i int), opts ...Option) error")
	require.Contains(t, text, "pkg github.com/weftrt/weft/intake, type Handler func(ctx context.Context, t Task) error")
	require.NotContains(t, text, "func chunksOn", "an unexported function listed")
	require.NotContains(t, text, "weft/internal/", "an internal package listed")
	require.NotContains(t, text, "weft/jetstream", "a nested module listed in the root module's listing")
}

// listingName is the file name of m's listing: weft for the root module,
// else its directory with slashes as dashes.
func listingName(m apilist.Module) string {
	if m.Dir == "." {
		return "weft"
	}
	return strings.ReplaceAll(m.Dir, "/", "-")
}
