// Command kube-controllers runs the parts of a control plane that make objects move: the
// upstream kube-controller-manager and kube-scheduler, and KWOK's simulated nodes and pods.
// It is a separate binary from kube-testenv so that suites needing only an API server never
// wait for it to build. `kube-testenv serve --controllers` starts one process per component.
//
//	kube-controllers controller-manager ARGS...   the real kube-controller-manager command
//	kube-controllers scheduler ARGS...            the real kube-scheduler command
//	kube-controllers kwok --dir=DIR ARGS...       KWOK's controller with its fast node and pod stages
package main

import (
	"fmt"
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as the upstream mains load them
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	name, args := os.Args[1], os.Args[2:]
	// Each component parses os.Args as if it were its own binary, under the upstream binary's
	// name: client-go derives the user agent and the default field manager from it, so
	// managedFields read `kube-controller-manager` as on a real cluster.
	os.Args = append([]string{binaryNames[name]}, args...)
	switch name {
	case "controller-manager":
		command := controllermanager.NewControllerManagerCommand()
		command.SetArgs(args)
		os.Exit(cli.Run(command))
	case "scheduler":
		command := scheduler.NewSchedulerCommand()
		command.SetArgs(args)
		os.Exit(cli.Run(command))
	case "kwok":
		if err := runKwok(args); err != nil {
			fmt.Fprintf(os.Stderr, "kube-controllers kwok: %v\n", err)
			os.Exit(1)
		}
	default:
		usage()
		os.Exit(2)
	}
}

var binaryNames = map[string]string{"controller-manager": "kube-controller-manager", "scheduler": "kube-scheduler", "kwok": "kwok"}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: kube-controllers controller-manager|scheduler|kwok ARGS...")
}
