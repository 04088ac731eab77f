package report_test

import (
	"encoding/xml"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/bench/internal/report"
	"github.com/weftrt/weft/bench/internal/result"
)

// panelSeries parses an SVG document, failing on malformed XML, and
// returns the contenders of the series in each panel.
func panelSeries(t *testing.T, svg string) [][]string {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	var panels [][]string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		el, ok := tok.(xml.StartElement)
		if !ok || el.Name.Local != "g" {
			continue
		}
		switch attr(el, "class") {
		case "panel":
			panels = append(panels, nil)
		case "series":
			require.NotEmpty(t, panels, "a series outside any panel")
			panels[len(panels)-1] = append(panels[len(panels)-1], attr(el, "data-contender"))
		}
	}
	return panels
}

func attr(el xml.StartElement, name string) string {
	for _, a := range el.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func plots(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, p := range report.Plots(fixture()) {
		m[p.File] = p.SVG
	}
	return m
}

func TestPlotsOneSeriesPerContender(t *testing.T) {
	ps := plots(t)
	require.Len(t, ps, 3)
	tests := []struct {
		file   string
		panels [][]string
	}{
		{"speedup.svg", [][]string{{"sequential", "weft", "goroutines"}}},
		{"efficiency.svg", [][]string{{"sequential", "weft"}}},
		{"admission.svg", [][]string{{"weft", "goroutines"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			assert.Equal(t, tt.panels, panelSeries(t, ps[tt.file]))
		})
	}
}

func TestSpeedupPlotMarksNoise(t *testing.T) {
	svg := plots(t)["speedup.svg"]
	assert.Contains(t, svg, "hollow: noisy")
	assert.Contains(t, svg, "1 of 9 results noisy")
	// goroutines ×2 took 120 against sequential's 100.
	assert.Contains(t, svg, "<title>goroutines ×2: 0.833x</title>")
}

func TestPlotsEscapeNames(t *testing.T) {
	run := fixture()
	for i := range run.Results {
		if run.Results[i].Contender == "goroutines" {
			run.Results[i].Contender = `a<b&"c"`
		}
	}
	for _, p := range report.Plots(run) {
		for _, series := range panelSeries(t, p.SVG) {
			if slices.Contains(series, "weft") && len(series) > 1 && p.File != "efficiency.svg" {
				assert.Contains(t, series, `a<b&"c"`, p.File)
			}
		}
	}
}

func TestSpeedupPlotHasTreeSum(t *testing.T) {
	run := fixture()
	run.Results = append(run.Results,
		res("tree-sum", "complete", "sequential", result.Baseline, 1, wallMetrics, 100),
		res("tree-sum", "complete", "weft", result.Weft, 2, wallMetrics, 50))
	for _, p := range report.Plots(run) {
		if p.File == "speedup.svg" {
			assert.Equal(t, [][]string{{"sequential", "weft", "goroutines"}, {"sequential", "weft"}}, panelSeries(t, p.SVG))
			assert.Contains(t, p.SVG, "<title>weft ×2: 2x</title>")
			return
		}
	}
	t.Fatal("no speedup.svg")
}
