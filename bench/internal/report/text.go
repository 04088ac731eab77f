package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// writeText writes t as aligned columns under its title, then the note on
// hidden ratios where one is, and a line per contender saying what it is.
func (t table) writeText(b *strings.Builder) {
	fmt.Fprintf(b, "\n%s: %s\n", t.title, t.doc)
	right := make([]bool, len(t.cols))
	for j, c := range t.cols {
		right[j] = c.right
	}
	b.WriteString(columns(t.grid(), right))
	if t.wide {
		b.WriteString("  " + wideNote + "\n")
	}
	width := 0
	for _, e := range t.legend {
		width = max(width, utf8.RuneCountInString(e.name)+1)
	}
	for _, e := range t.legend {
		fmt.Fprintf(b, "  %s %s\n", pad(e.name+":", width, false), e.doc)
	}
}

// columns lays rows out in columns as wide as their widest cell, two
// spaces apart, flush right where right says and left elsewhere. Widths
// count runes, not bytes: "µs" and "±" are one column wide each.
func columns(rows [][]string, right []bool) string {
	width := widths(rows)
	var b strings.Builder
	for _, r := range rows {
		cells := make([]string, len(r))
		for j, c := range r {
			cells[j] = pad(c, width[j], right[j])
		}
		b.WriteString(strings.TrimRight(strings.Join(cells, "  "), " ") + "\n")
	}
	return b.String()
}

func widths(rows [][]string) []int {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for j, c := range r {
			width[j] = max(width[j], utf8.RuneCountInString(c))
		}
	}
	return width
}

// pad pads s with spaces to width runes, on the left if right.
func pad(s string, width int, right bool) string {
	fill := strings.Repeat(" ", max(width-utf8.RuneCountInString(s), 0))
	if right {
		return fill + s
	}
	return s + fill
}
