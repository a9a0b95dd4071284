// Command kube-testenv runs a real kube-apiserver with an embedded etcd on loopback,
// built from the upstream Kubernetes Go modules. It is Tidemark's test control plane:
// with --controllers it also starts kube-controller-manager, kube-scheduler and KWOK nodes
// (see the kube-controllers binary); without, only the API server and its storage run.
//
//	kube-testenv serve --dir DIR [--port N] [--controllers [--nodes N]]
//	                                          start etcd + kube-apiserver (+ controllers), write DIR/kubeconfig
//	kube-testenv kubectl ARGS...              the real kubectl command
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		if err := serve(os.Args[2:]); err != nil {
			fmt.Fprintf(os.Stderr, "kube-testenv: %v\n", err)
			os.Exit(1)
		}
	case "kubectl":
		runKubectl(os.Args[2:])
	default:
		usage()
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: kube-testenv serve --dir DIR [--port N] [--controllers [--nodes N] [--pods-per-node N]] | kube-testenv kubectl ARGS...")
}
