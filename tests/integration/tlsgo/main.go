// An HTTPS server whose TLS is Go's crypto/tls, linked into the executable (no libssl in its
// maps): test_reqtime_tls_plain.sh checks that the observer counts its connections and
// handshakes and no request. Usage: tlsgo ADDR CERT KEY; prints "listening" on stderr once it listens.
package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: tlsgo ADDR CERT KEY")
		os.Exit(64)
	}
	cert, err := tls.LoadX509KeyPair(os.Args[2], os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, "tlsgo:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "tlsgo:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "listening")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok\n"))
	})
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}}
	srv := &http.Server{Handler: h}
	if err := srv.Serve(tls.NewListener(ln, cfg)); err != nil {
		fmt.Fprintln(os.Stderr, "tlsgo:", err)
		os.Exit(1)
	}
}
