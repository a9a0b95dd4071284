package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// controllerOptions shape the simulated cluster that `serve --controllers` starts.
type controllerOptions struct {
	binary      string
	nodes       int
	podsPerNode int
}

// leaderLeases are the Leases the two control-plane components take in kube-system when they
// win leader election; holding them means their controllers and scheduling loop run.
var leaderLeases = map[string]string{"kube-controller-manager": "controller-manager", "kube-scheduler": "scheduler"}

// startControllers starts kube-controller-manager, kube-scheduler and KWOK against the API
// server, registers the simulated nodes, and returns once the leases are held and the nodes
// are Ready.
func startControllers(ctx context.Context, stateDir, kubeconfig string, certs *pki, options controllerOptions) (*components, error) {
	client, err := clientFor(kubeconfig)
	if err != nil {
		return nil, err
	}
	// The state directory may come from an earlier run of this same cluster (restart): its
	// controllers and KWOK are gone, so their leases are released now rather than left to
	// expire. A node Lease still held by the old KWOK (a new KWOK has a new identity) would keep
	// its pods unplayed for up to the Lease's 40 s, while the node still looks Ready.
	if err := releaseLeases(ctx, client, options); err != nil {
		return nil, err
	}
	started := time.Now()
	if err := registerNodes(ctx, client, options); err != nil {
		return nil, err
	}

	running := &components{failed: make(chan error, 1)}
	for _, spec := range []struct {
		name string
		args []string
	}{
		{"kube-controller-manager", controllerManagerArgs(kubeconfig, certs)},
		{"kube-scheduler", schedulerArgs(kubeconfig)},
		{"kwok", kwokArgs(stateDir, kubeconfig)},
	} {
		c, err := startComponent(options.binary, stateDir, spec.name, spec.args)
		if err != nil {
			running.stop()
			return nil, err
		}
		running.add(c)
	}
	if err := waitControllersReady(ctx, client, running, options, started); err != nil {
		running.stop()
		return nil, err
	}
	return running, nil
}

// releaseLeases deletes the leader Leases of the controller manager and the scheduler and the
// node Leases of the simulated nodes, as a previous run of this cluster left them.
func releaseLeases(ctx context.Context, client kubernetes.Interface, options controllerOptions) error {
	leases := map[string]string{}
	for lease := range leaderLeases {
		leases[lease] = "kube-system"
	}
	for index := range options.nodes {
		leases[nodeName(index)] = "kube-node-lease"
	}
	for lease, namespace := range leases {
		err := client.CoordinationV1().Leases(namespace).Delete(ctx, lease, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("releasing the lease %s/%s of a previous run: %w", namespace, lease, err)
		}
	}
	return nil
}

func nodeName(index int) string {
	return "kwok-node-" + strconv.Itoa(index)
}

func clientFor(kubeconfig string) (*kubernetes.Clientset, error) {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	config.QPS, config.Burst = 50, 100
	return kubernetes.NewForConfig(config)
}

// leaderElectionArgs keep leader election (the ready line waits for the leases) but give it the
// patience of a loaded test machine: with the defaults (15 s lease, 10 s renew deadline) a
// controller manager whose lease renewal waited 10 s for a busy API server gave up its lease and
// exited, which ended the whole control plane (seen with 1,000 WebApps at a load average of 30).
// There is only ever one candidate, so a long lease costs nothing.
var leaderElectionArgs = []string{
	"--leader-elect=true",
	"--leader-elect-resource-namespace=kube-system",
	"--leader-elect-lease-duration=120s",
	"--leader-elect-renew-deadline=100s",
	"--leader-elect-retry-period=2s",
}

// controllerManagerArgs run the default controller set (deployment, replicaset, statefulset,
// daemonset, job, cronjob, namespace, garbage collector, serviceaccount and its token,
// endpointslice, HPA, disruption, node lifecycle, …) with leader election and no serving port,
// so several clusters run side by side. Client rates are raised above the defaults (20/30),
// which are sized for a shared production API server, not a test server with thousands of
// objects created at once.
func controllerManagerArgs(kubeconfig string, certs *pki) []string {
	return append([]string{
		"controller-manager",
		"--kubeconfig=" + kubeconfig,
		"--secure-port=0",
		"--controllers=*",
		"--cluster-name=tidemark-testenv",
		"--service-account-private-key-file=" + certs.ServiceAccountKeyFile,
		"--root-ca-file=" + certs.CAFile,
		"--use-service-account-credentials=false",
		"--kube-api-qps=300",
		"--kube-api-burst=600",
		"--concurrent-deployment-syncs=10",
		"--concurrent-replicaset-syncs=10",
		"--concurrent-gc-syncs=20",
		"--profiling=false",
		"--v=0",
	}, leaderElectionArgs...)
}

func schedulerArgs(kubeconfig string) []string {
	return append([]string{
		"scheduler",
		"--kubeconfig=" + kubeconfig,
		"--secure-port=0",
		"--kube-api-qps=300",
		"--kube-api-burst=600",
		"--profiling=false",
		"--v=0",
	}, leaderElectionArgs...)
}

// kwokArgs let KWOK manage the nodes registered here (marked the way kwokctl marks its own).
func kwokArgs(stateDir, kubeconfig string) []string {
	return []string{
		"kwok",
		"--dir=" + stateDir,
		"--kubeconfig=" + kubeconfig,
		"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--node-lease-duration-seconds=40",
		"--cidr=10.244.0.0/16",
		"--node-ip=192.0.2.1",
	}
}

// registerNodes creates the simulated nodes, like kwokctl's default node: 32 CPUs, 256Gi of
// memory and podsPerNode pods each, a /24 of pod addresses each, and a documentation-range
// (TEST-NET-1) address that nothing ever sends traffic to. Nodes that exist are kept.
func registerNodes(ctx context.Context, client kubernetes.Interface, options controllerOptions) error {
	for index := range options.nodes {
		node := simulatedNode(index, options.podsPerNode)
		_, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("registering simulated node %s: %w", node.Name, err)
		}
	}
	return nil
}

func simulatedNode(index, podsPerNode int) *corev1.Node {
	name := nodeName(index)
	podCIDR := fmt.Sprintf("10.244.%d.0/24", index)
	resources := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   *resource.NewQuantity(int64(podsPerNode), resource.DecimalSI),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Annotations: map[string]string{
				"kwok.x-k8s.io/node":           "fake",
				"node.alpha.kubernetes.io/ttl": "0",
			},
			Labels: map[string]string{
				"kubernetes.io/arch":            "amd64",
				"kubernetes.io/os":              "linux",
				"kubernetes.io/hostname":        name,
				"kubernetes.io/role":            "agent",
				"node-role.kubernetes.io/agent": "",
				"type":                          "kwok",
			},
		},
		Spec: corev1.NodeSpec{PodCIDR: podCIDR, PodCIDRs: []string{podCIDR}},
		Status: corev1.NodeStatus{
			Addresses:   []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("192.0.2.%d", index+1)}},
			Allocatable: resources,
			Capacity:    resources,
			NodeInfo:    corev1.NodeSystemInfo{Architecture: "amd64", OperatingSystem: "linux", KubeletVersion: "v1.37.2-kwok"},
		},
	}
}

// waitControllersReady waits until both leader leases are held and renewed, every simulated
// node is Ready and its Lease renewed by this run's KWOK (after `started`: a restarted cluster
// keeps the Ready condition of the run before), and the serviceaccount controller has made
// default/default (which also proves the controller manager's informers have synced).
func waitControllersReady(ctx context.Context, client kubernetes.Interface, running *components, options controllerOptions, started time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	var missing string
	for {
		if err := running.firstFailure(); err != nil {
			return err
		}
		missing = controllersNotReady(ctx, client, options, started)
		if missing == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return errors.New("stopped before the controllers were ready")
			}
			return fmt.Errorf("the controllers were not ready within 3 minutes: %s (logs in %s)", missing, filepath.Dir(running.list[0].logPath))
		case err := <-running.failed:
			return err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// controllersNotReady says what is still missing, or "" when everything is ready.
func controllersNotReady(ctx context.Context, client kubernetes.Interface, options controllerOptions, started time.Time) string {
	for lease, component := range leaderLeases {
		held, err := client.CoordinationV1().Leases("kube-system").Get(ctx, lease, metav1.GetOptions{})
		if err != nil || !leaseHeld(held) {
			return fmt.Sprintf("the %s has not taken its lease kube-system/%s", component, lease)
		}
	}
	for index := range options.nodes {
		name := nodeName(index)
		node, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil || !nodeReady(node) {
			return "the simulated node " + name + " is not Ready"
		}
		lease, err := client.CoordinationV1().Leases("kube-node-lease").Get(ctx, name, metav1.GetOptions{})
		if err != nil || !leaseHeld(lease) || lease.Spec.RenewTime.Time.Before(started) {
			return "KWOK has not taken the Lease kube-node-lease/" + name
		}
	}
	if _, err := client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
		return "the serviceaccount controller has not created default/default"
	}
	return ""
}

func leaseHeld(lease *coordinationv1.Lease) bool {
	spec := lease.Spec
	if spec.HolderIdentity == nil || *spec.HolderIdentity == "" || spec.RenewTime == nil || spec.LeaseDurationSeconds == nil {
		return false
	}
	return time.Since(spec.RenewTime.Time) < time.Duration(*spec.LeaseDurationSeconds)*time.Second
}

func nodeReady(node *corev1.Node) bool {
	for _, condition := range node.Status.Conditions {
		if condition.Type == corev1.NodeReady {
			return condition.Status == corev1.ConditionTrue
		}
	}
	return false
}
