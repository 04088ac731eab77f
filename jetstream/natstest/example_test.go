package natstest_test

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/weftrt/weft/jetstream/natstest"
)

// A JetStream server in the process: start it, connect to its URL, shut
// it down (which removes its temporary store).
func Example() {
	ctx := context.Background()
	srv, err := natstest.Start(ctx, natstest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Shutdown(ctx)

	nc, err := nats.Connect(srv.URL())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	stream, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "JOBS", Subjects: []string{"jobs.>"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := js.Publish(ctx, "jobs.hello", []byte("hello")); err != nil {
		fmt.Println(err)
		return
	}
	msg, err := stream.GetLastMsgForSubject(ctx, "jobs.hello")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s\n", msg.Subject, msg.Data)
	// Output: jobs.hello: hello
}
