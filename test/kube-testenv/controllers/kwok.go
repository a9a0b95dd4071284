package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	nodeheartbeat "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat-with-lease"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
	"sigs.k8s.io/kwok/pkg/config"
	kwokcmd "sigs.k8s.io/kwok/pkg/kwok/cmd"
	"sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/signals"
)

// kwokStages are the stages kwokctl itself installs by default: nodes turn Ready at once and
// renew their Lease; pods on them get an IP from the node's podCIDR and turn Running and Ready,
// Job pods complete, and deleted pods go away.
var kwokStages = []string{
	nodefast.DefaultNodeInit,
	nodeheartbeat.DefaultNodeHeartbeatWithLease,
	podfast.DefaultPodReady,
	podfast.DefaultPodComplete,
	podfast.DefaultPodDelete,
}

// runKwok writes the stage configuration into --dir=DIR (the first argument) and runs KWOK's own
// command on it, the way KWOK's main does; the other arguments go to KWOK (--kubeconfig, …).
func runKwok(args []string) error {
	if len(args) == 0 || !strings.HasPrefix(args[0], "--dir=") || args[0] == "--dir=" {
		return errors.New("the first argument must be --dir=DIR")
	}
	dir := strings.TrimPrefix(args[0], "--dir=")
	stagesFile := filepath.Join(dir, "kwok-stages.yaml")
	if err := os.WriteFile(stagesFile, []byte(strings.Join(kwokStages, "\n---\n")), 0o600); err != nil {
		return err
	}
	os.Args = append([]string{"kwok", "--config", stagesFile}, args[1:]...)
	// The Kubernetes components linked into this binary register global flags (a string
	// --version among them) that cobra would merge into KWOK's command; KWOK's own binary has none.
	pflag.CommandLine = pflag.NewFlagSet("kwok", pflag.ContinueOnError)

	flagset := pflag.NewFlagSet("global", pflag.ContinueOnError)
	flagset.ParseErrorsAllowlist.UnknownFlags = true
	flagset.Usage = func() {}
	ctx := signals.SetupSignalContext()
	ctx, _ = log.InitFlags(ctx, flagset)
	ctx, err := config.InitFlags(ctx, flagset)
	if err != nil {
		return err
	}
	command := kwokcmd.NewCommand(ctx)
	command.PersistentFlags().AddFlagSet(flagset)
	command.SetArgs(os.Args[1:])
	return command.ExecuteContext(ctx)
}
