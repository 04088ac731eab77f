// Package apilist lists the exported API of every module in the
// repository, one declaration a line, in the manner of Go's own api/
// files, so that a test can hold the listings checked in under api/ to
// the code: an exported name that changes without its listing fails CI
// (see api_test.go; `go test ./internal/apilist -update` rewrites them).
//
// It reads the source, not compiled packages, so that it lists the
// nested modules too: every package directory outside internal/, cmd/,
// testdata/ and the examples, test files aside. A declaration found in
// files for different systems (cpu_unix.go, cpu_windows.go) is listed
// once.
package apilist

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Module is one module of the repository: its directory, relative to the
// repository's root, and its module path.
type Module struct {
	Dir, Path string
}

// Modules returns the modules under root: every directory with a go.mod.
func Modules(root string) ([]Module, error) {
	var mods []Module
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != "go.mod" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		mod, ok := modulePath(data)
		if !ok {
			return fmt.Errorf("%s: no module line", path)
		}
		dir, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		mods = append(mods, Module{Dir: filepath.ToSlash(dir), Path: mod})
		return nil
	})
	return mods, err
}

func modulePath(gomod []byte) (string, bool) {
	for line := range strings.Lines(string(gomod)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// skipDir reports whether a directory holds no public API: hidden ones,
// internal packages, commands, test data and examples.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "internal" || name == "cmd" || name == "testdata" || name == "examples"
}

// List returns the exported API of module m under root, sorted: one line
// per declaration, "pkg <import path>, <declaration>".
func List(root string, m Module) ([]string, error) {
	base := filepath.Join(root, filepath.FromSlash(m.Dir))
	seen := map[string]bool{}
	err := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != base && (skipDir(d.Name()) || isModule(path, base)) {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(base, path)
		if err != nil {
			return err
		}
		importPath := m.Path
		if rel != "." {
			importPath += "/" + filepath.ToSlash(rel)
		}
		lines, err := listDir(path, importPath)
		for _, l := range lines {
			seen[l] = true
		}
		return err
	})
	out := make([]string, 0, len(seen))
	for l := range seen {
		out = append(out, l)
	}
	slices.Sort(out)
	return out, err
}

// isModule reports whether dir, below base, is the root of another module.
func isModule(dir, base string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return dir != base && err == nil
}

// listDir lists the exported declarations of the package in dir, if it
// has one that is not a command.
func listDir(dir, importPath string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	// Every file, whatever its build constraints (cpu_unix.go and
	// cpu_windows.go alike), grouped by package clause.
	fset := token.NewFileSet()
	byPkg := map[string][]*ast.File{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		byPkg[f.Name.Name] = append(byPkg[f.Name.Name], f)
	}
	var lines []string
	for name, files := range byPkg {
		if name == "main" {
			continue
		}
		d, err := doc.NewFromFiles(fset, files, importPath)
		if err != nil {
			return nil, err
		}
		lines = append(lines, declarations(fset, d)...)
	}
	return lines, nil
}

// declarations returns "pkg <path>, <decl>" for every exported constant,
// variable, function, type and method of d.
func declarations(fset *token.FileSet, d *doc.Package) []string {
	var out []string
	add := func(decl string) { out = append(out, "pkg "+d.ImportPath+", "+decl) }
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, spec := range v.Decl.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !n.IsExported() {
						continue
					}
					decl := strings.ToLower(v.Decl.Tok.String()) + " " + n.Name + typeSuffix(fset, vs.Type)
					if v.Decl.Tok == token.CONST && i < len(vs.Values) {
						decl += " = " + oneLine(fset, vs.Values[i]) // a constant's value is API too
					}
					add(decl)
				}
			}
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			decl := *f.Decl
			decl.Body, decl.Doc = nil, nil
			add(oneLine(fset, &decl))
		}
	}
	values(d.Consts)
	values(d.Vars)
	funcs(d.Funcs)
	for _, t := range d.Types {
		spec := *t.Decl.Specs[0].(*ast.TypeSpec)
		spec.Doc, spec.Comment = nil, nil
		add("type " + oneLine(fset, &spec))
		values(t.Consts)
		values(t.Vars)
		funcs(t.Funcs)
		funcs(t.Methods)
	}
	return out
}

// typeSuffix is " T" for a declaration with an explicit type T, else "".
func typeSuffix(fset *token.FileSet, t ast.Expr) string {
	if t == nil {
		return ""
	}
	return " " + oneLine(fset, t)
}

// oneLine prints node with its comments dropped and its whitespace runs
// folded into single spaces.
func oneLine(fset *token.FileSet, node any) string {
	var buf bytes.Buffer
	if err := printer.Fprint(&buf, fset, node); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	var b strings.Builder
	for line := range strings.Lines(buf.String()) {
		if i := strings.Index(line, "//"); i >= 0 && !strings.Contains(line[:i], "\"") {
			line = line[:i]
		}
		b.WriteString(strings.TrimSpace(line))
		b.WriteByte(' ')
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
