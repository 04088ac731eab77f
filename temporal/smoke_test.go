package wefttemporal_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

func TestSmoke(t *testing.T) {
	c := server.GetDefaultClient()
	w := worker.New(c, "smoke", worker.Options{})
	w.RegisterWorkflowWithOptions(func(ctx workflow.Context) (int, error) { return 7, nil }, workflow.RegisterOptions{Name: "seven"})
	require.NoError(t, w.Start())
	defer w.Stop()
	run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{TaskQueue: "smoke"}, "seven")
	require.NoError(t, err)
	var got int
	require.NoError(t, run.Get(context.Background(), &got))
	require.Equal(t, 7, got)
}
