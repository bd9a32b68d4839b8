// A stdlib-only Go HTTP server for the scenario matrix: keep-alive HTTP/1.1, one handler.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
)

func main() {
	port := flag.Int("port", 8080, "port on 127.0.0.1")
	flag.Parse()
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "hello, scenario\n")
	})
	fmt.Fprintf(os.Stderr, "ready go %d\n", *port)
	log.Fatal(http.ListenAndServe(fmt.Sprintf("127.0.0.1:%d", *port), nil))
}
