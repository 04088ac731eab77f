// Package result is the harness's data model: what one run measured, in
// the form every output writer (table, benchfmt, JSON, SVG) reads.
package result
