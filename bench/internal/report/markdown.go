package report

import (
	"io"
	"strings"

	"github.com/weftrt/weft/bench/internal/result"
)

// WriteMarkdown writes what WriteTable does as GitHub-flavoured Markdown,
// for docs/figures.md: a heading, the workload's line and a table per
// workload, each followed by the note on hidden ratios where one is and a
// list saying what each contender is. Cells are padded so that the source
// reads as a table too.
func WriteMarkdown(w io.Writer, run *result.Run) error {
	var b strings.Builder
	where, how := preamble(run)
	b.WriteString(mdEscape(strings.Join(where, ", ")) + "\n\n" + mdParagraph(how) + "\n")
	for _, g := range groups(run) {
		newTable(run, g).writeMarkdown(&b)
	}
	b.WriteString("\n" + mdParagraph(strings.Split(epilogue(run), "\n")) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func (t table) writeMarkdown(b *strings.Builder) {
	b.WriteString("\n### " + mdEscape(t.title) + "\n\n" + mdEscape(t.doc) + "\n\n")
	g := t.grid()
	for _, r := range g {
		for j := range r {
			r[j] = mdEscape(r[j])
		}
	}
	width := widths(g)
	for j := range width {
		width[j] = max(width[j], 3) // a separator cell needs three characters
	}
	mdRow(b, g[0], width, t.cols)
	mdSeparator(b, width, t.cols)
	for _, r := range g[1:] {
		mdRow(b, r, width, t.cols)
	}
	t.writeMarkdownNotes(b)
}

// mdSeparator writes the row under the header, which also says how each
// column aligns: ":--" left, "--:" right.
func mdSeparator(b *strings.Builder, width []int, cols []column) {
	sep := make([]string, len(cols))
	for j, c := range cols {
		dashes := strings.Repeat("-", width[j]-1)
		if c.right {
			sep[j] = dashes + ":"
		} else {
			sep[j] = ":" + dashes
		}
	}
	b.WriteString("| " + strings.Join(sep, " | ") + " |\n")
}

func mdRow(b *strings.Builder, cells []string, width []int, cols []column) {
	padded := make([]string, len(cells))
	for j, c := range cells {
		padded[j] = pad(c, width[j], cols[j].right)
	}
	b.WriteString("| " + strings.Join(padded, " | ") + " |\n")
}

func (t table) writeMarkdownNotes(b *strings.Builder) {
	b.WriteString("\n")
	if t.wide {
		b.WriteString(mdEscape(wideNote) + "\n\n")
	}
	for _, e := range t.legend {
		b.WriteString("- " + mdEscape(e.name) + ": " + mdEscape(e.doc) + "\n")
	}
}

// mdEscaper backslash-escapes the characters that would start Markdown
// markup inside a line: emphasis, code, links, HTML, strikethrough and,
// in a table, the cell separator. A newline becomes a space, since a
// cell, a heading or a list item is one line.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "|", `\|`, "~", `\~`, "\n", " ",
)

// mdEscape makes s plain text on one line of Markdown.
func mdEscape(s string) string { return mdEscaper.Replace(s) }

// mdParagraph joins lines into one paragraph on one line: a line of its
// own that began with "1." or "#" would start a list or a heading.
func mdParagraph(lines []string) string { return mdEscape(strings.Join(lines, " ")) }
