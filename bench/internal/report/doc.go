// Package report writes a run's results: the table people read (as text
// or as Markdown for the docs), the benchfmt file benchstat reads, a JSON
// summary for scripts, and SVG plots.
package report
