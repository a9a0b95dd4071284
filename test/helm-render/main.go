// helm-render renders a Helm chart the way `helm template` does, with Helm's own library
// (helm.sh/helm/v3 pkg/action in client-only dry-run mode), so CI can check the chart
// without a helm binary on the machine.
//
// Usage: helm-render <chart-dir> [--name NAME] [--namespace NS] [--set k=v]... [--values FILE]... [--kube-version V]
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/cli"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/getter"
)

type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "helm-render: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("usage: helm-render <chart-dir> [--name NAME] [--namespace NS] [--set k=v]... [--values FILE]...")
	}
	chartPath := args[0]
	flags := flag.NewFlagSet("helm-render", flag.ContinueOnError)
	name := flags.String("name", "release-name", "release name")
	namespace := flags.String("namespace", "default", "release namespace")
	kubeVersion := flags.String("kube-version", "", "Kubernetes version for Capabilities.KubeVersion")
	includeCRDs := flags.Bool("include-crds", false, "include the chart's crds/ folder in the output")
	var sets, stringSets, valueFiles repeated
	flags.Var(&sets, "set", "set a value on the command line (k=v, repeatable)")
	flags.Var(&stringSets, "set-string", "set a STRING value on the command line (k=v, repeatable)")
	flags.Var(&valueFiles, "values", "a values file (repeatable)")
	if err := flags.Parse(args[1:]); err != nil {
		return err
	}

	// What `helm template` sets up: a client-only install in dry-run mode.
	install := action.NewInstall(&action.Configuration{})
	install.DryRun = true
	install.ClientOnly = true
	install.Replace = true
	install.ReleaseName = *name
	install.Namespace = *namespace
	install.IncludeCRDs = *includeCRDs
	if *kubeVersion == "" {
		*kubeVersion = clientGoKubeVersion()
	}
	if *kubeVersion != "" {
		parsed, err := chartutil.ParseKubeVersion(*kubeVersion)
		if err != nil {
			return fmt.Errorf("--kube-version: %w", err)
		}
		install.KubeVersion = parsed
	}

	chart, err := loader.Load(chartPath)
	if err != nil {
		return fmt.Errorf("load chart %s: %w", chartPath, err)
	}
	options := values.Options{ValueFiles: valueFiles, Values: sets, StringValues: stringSets}
	vals, err := options.MergeValues(getter.All(cli.New()))
	if err != nil {
		return err
	}
	release, err := install.Run(chart, vals)
	if err != nil {
		return err
	}
	// Same output as `helm template`: the manifest, then each hook with its source comment.
	var out strings.Builder
	fmt.Fprintln(&out, strings.TrimSpace(release.Manifest))
	for _, hook := range release.Hooks {
		fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", hook.Path, hook.Manifest)
	}
	_, err = os.Stdout.WriteString(out.String())
	return err
}

// clientGoKubeVersion is the Kubernetes version of the client-go this binary was built with
// (v0.37.0 -> v1.37.0), which is what Helm's own build stamps into `helm template`'s default
// Capabilities through ldflags; without it the library default is v1.20.0.
func clientGoKubeVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, dep := range info.Deps {
		if dep.Path == "k8s.io/client-go" && strings.HasPrefix(dep.Version, "v0.") {
			return "v1." + strings.TrimPrefix(dep.Version, "v0.")
		}
	}
	return ""
}
