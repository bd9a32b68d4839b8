// SPDX-License-Identifier: MIT
//
// A gRPC key/value server for the benchmarks (bench/grpc_ghz.sh) and the observer's tests:
// tests/data/kv.proto's kv.Store, Put and Get on a sync.Map, served by grpc-go. Its own counts
// are the ground truth a load generator's are compared with: a unary interceptor counts every
// call per method and per status code and times each handler. With -exhaust-every N, every Nth
// call (over all methods) is answered RESOURCE_EXHAUSTED without reaching its handler.
//
// With -delay D each handler sleeps D before it answers (a known service time); with
// -max-concurrent N at most N calls are in their handlers at once, the others wait for a place
// inside the server (a pool of N workers).
//
// At SIGINT or SIGTERM it stops, then prints one JSON object on stdout (and into -json FILE):
//
//	{"calls": {"/kv.Store/Get": 9000, "/kv.Store/Put": 1000},
//	 "codes": {"OK": 9990, "RESOURCE_EXHAUSTED": 10},
//	 "handler_mean_ns": {"/kv.Store/Get": 310.5, "/kv.Store/Put": 402.1},
//	 "call_mean_ns": {"/kv.Store/Get": 352.0, "/kv.Store/Put": 450.3},
//	 "handled": {"/kv.Store/Get": 8991, "/kv.Store/Put": 999}, "keys": 999}
//
// calls counts every call the server received, handled those that reached a handler (their
// mean time in handler_mean_ns), call_mean_ns the interceptor's whole time for every call (a
// wait for a place, the handler, or the injected error), keys the entries stored. The kv
// package is generated from kv.proto by protoc-gen-go and protoc-gen-go-grpc when the bench
// builds this server.
//
// usage: grpc_kv -listen 127.0.0.1:PORT [-exhaust-every N] [-delay D] [-max-concurrent N]
//
//	[-json FILE]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"loadlens.bench/grpc_kv/kv"
)

type store struct {
	kv.UnimplementedStoreServer
	m sync.Map
}

func (s *store) Put(_ context.Context, r *kv.PutRequest) (*kv.PutReply, error) {
	s.m.Store(r.GetKey(), r.GetValue())
	return &kv.PutReply{}, nil
}

func (s *store) Get(_ context.Context, r *kv.GetRequest) (*kv.GetReply, error) {
	v, ok := s.m.Load(r.GetKey())
	if !ok {
		return &kv.GetReply{}, nil
	}
	return &kv.GetReply{Value: v.([]byte)}, nil
}

// method: one method's counters, updated with atomics (no lock on the call path).
type method struct {
	calls, handled, handlerNs, callNs atomic.Uint64
}

// counts: methods is made before the server starts and only read after (a call to a method
// the server does not have never reaches the interceptor: grpc-go answers it UNIMPLEMENTED).
type counts struct {
	methods map[string]*method
	codes   [17]atomic.Uint64 // per gRPC status code 0..16
	total   atomic.Uint64
	every   uint64
	delay   time.Duration
	places  chan struct{} // -max-concurrent: a place per call in its handler; nil: no limit
}

func (c *counts) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo,
	handler grpc.UnaryHandler) (any, error) {
	m := c.methods[info.FullMethod]
	t0 := time.Now()
	defer func() { m.callNs.Add(uint64(time.Since(t0).Nanoseconds())) }()
	m.calls.Add(1)
	if n := c.total.Add(1); c.every > 0 && n%c.every == 0 {
		c.codes[codes.ResourceExhausted].Add(1)
		return nil, status.Error(codes.ResourceExhausted, "injected: every "+
			fmt.Sprint(c.every)+"th call")
	}
	if c.places != nil {
		c.places <- struct{}{}
		defer func() { <-c.places }()
	}
	t1 := time.Now()
	if c.delay > 0 {
		time.Sleep(c.delay)
	}
	resp, err := handler(ctx, req)
	m.handlerNs.Add(uint64(time.Since(t1).Nanoseconds()))
	m.handled.Add(1)
	c.codes[status.Code(err)].Add(1)
	return resp, err
}

func (c *counts) report(keys int) map[string]any {
	calls, handled, mean, callMean, byCode := map[string]uint64{}, map[string]uint64{},
		map[string]float64{}, map[string]float64{}, map[string]uint64{}
	for name, m := range c.methods {
		calls[name] = m.calls.Load()
		handled[name] = m.handled.Load()
		if h := m.handled.Load(); h > 0 {
			mean[name] = float64(m.handlerNs.Load()) / float64(h)
		}
		if n := m.calls.Load(); n > 0 {
			callMean[name] = float64(m.callNs.Load()) / float64(n)
		}
	}
	for i := range c.codes {
		if n := c.codes[i].Load(); n > 0 {
			byCode[codes.Code(i).String()] = n
		}
	}
	return map[string]any{"calls": calls, "handled": handled, "handler_mean_ns": mean,
		"call_mean_ns": callMean, "codes": byCode, "keys": keys}
}

func main() {
	listen := flag.String("listen", "127.0.0.1:50051", "address to serve on")
	every := flag.Uint64("exhaust-every", 0, "answer every Nth call RESOURCE_EXHAUSTED (0: never)")
	jsonPath := flag.String("json", "", "also write the counts at exit into this file")
	delay := flag.Duration("delay", 0, "each handler sleeps this long before it answers")
	limit := flag.Int("max-concurrent", 0, "at most this many calls in handlers at once (0: any)")
	flag.Parse()

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "grpc_kv: %v\n", err)
		os.Exit(1)
	}
	c := &counts{methods: map[string]*method{}, every: *every, delay: *delay}
	if *limit > 0 {
		c.places = make(chan struct{}, *limit)
	}
	for _, md := range kv.Store_ServiceDesc.Methods {
		c.methods["/"+kv.Store_ServiceDesc.ServiceName+"/"+md.MethodName] = &method{}
	}
	srv := grpc.NewServer(grpc.UnaryInterceptor(c.intercept))
	st := &store{}
	kv.RegisterStoreServer(srv, st)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sig
		srv.Stop() // every call in flight ends; the counts are final after Serve returns
	}()
	fmt.Fprintf(os.Stderr, "grpc_kv: listening on %s\n", ln.Addr())
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintf(os.Stderr, "grpc_kv: %v\n", err)
		os.Exit(1)
	}
	keys := 0
	st.m.Range(func(_, _ any) bool { keys++; return true })
	out, _ := json.Marshal(c.report(keys))
	fmt.Println(string(out))
	if *jsonPath != "" {
		if err := os.WriteFile(*jsonPath, append(out, '\n'), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "grpc_kv: %v\n", err)
			os.Exit(1)
		}
	}
}
