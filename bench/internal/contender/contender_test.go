package contender_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
)

func TestBuiltins(t *testing.T) {
	assert.Equal(t, []string{"sequential", "weft", "weft-closures", "weft-values", "weft-fixed", "goroutines", "errgroup", "semaphore"},
		contender.Names(contender.All()))
}

func TestLookupKeepsRegistryOrder(t *testing.T) {
	cs, err := contender.Lookup([]string{"semaphore", "weft"})
	require.NoError(t, err)
	assert.Equal(t, []string{"weft", "semaphore"}, contender.Names(cs))
	_, err = contender.Lookup([]string{"weft", "ants"})
	assert.ErrorContains(t, err, `unknown contender "ants"`)
}

func TestRegisterRefusesDuplicatesAndBlanks(t *testing.T) {
	start := func(int) (contender.Instance, error) { return nil, nil }
	assert.PanicsWithValue(t, "weft/bench: contender weft registered twice", func() {
		contender.Register(contender.Contender{Name: "weft", Start: start})
	})
	assert.Panics(t, func() { contender.Register(contender.Contender{Name: "x"}) })
	assert.Panics(t, func() { contender.Register(contender.Contender{Start: start}) })
}

// TestCapabilitiesMatchInstances starts every built-in contender and
// checks that its instance implements what its Caps claim.
func TestCapabilitiesMatchInstances(t *testing.T) {
	for _, c := range contender.All() {
		t.Run(c.Name, func(t *testing.T) {
			inst, err := c.Start(2)
			require.NoError(t, err)
			defer inst.Close()
			_, fork := inst.(contender.Forking)
			_, kernel := inst.(contender.KernelRunner)
			_, submit := inst.(contender.Submitter)
			assert.True(t, fork || !c.Can(contender.Fork), "claims Fork")
			assert.True(t, kernel || !c.Can(contender.Kernel), "claims Kernel")
			assert.True(t, submit || !c.Can(contender.Submit), "claims Submit")
			assert.NotEmpty(t, c.Doc)
			assert.Contains(t, []result.Role{result.Baseline, result.Weft, result.Alternative}, c.Role)
		})
	}
}
