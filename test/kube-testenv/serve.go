package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

// serve starts etcd and kube-apiserver, writes the kubeconfig, prints one ready line
// and runs until SIGTERM or SIGINT (handled by the API server's own signal context).
func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	dir := fs.String("dir", "", "state directory (certificates, etcd data, kubeconfig); reused across restarts")
	port := fs.Int("port", 0, "secure port of the API server on 127.0.0.1 (0 picks a free one)")
	withControllers := fs.Bool("controllers", false, "also run kube-controller-manager, kube-scheduler and KWOK's simulated nodes (a full control plane)")
	nodes := fs.Int("nodes", 2, "with --controllers: how many simulated nodes to register")
	podsPerNode := fs.Int("pods-per-node", 110, "with --controllers: pods each simulated node can hold")
	binary := fs.String("controllers-binary", "", "with --controllers: the kube-controllers binary (default: next to this one)")
	auditLog := fs.String("audit-log", "", "write one JSON audit event per finished request to this file (metadata only), to count requests")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("--dir is required")
	}
	if *withControllers && (*nodes < 1 || *podsPerNode < 1) {
		return errors.New("--nodes and --pods-per-node must be at least 1")
	}
	var options *controllerOptions
	if *withControllers {
		path, err := controllersBinary(*binary)
		if err != nil {
			return err
		}
		options = &controllerOptions{binary: path, nodes: *nodes, podsPerNode: *podsPerNode}
	}
	stateDir, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	if *port == 0 {
		if *port, err = freePort(); err != nil {
			return err
		}
	} else if err := checkPortFree(*port); err != nil {
		return err
	}
	certs, err := ensurePKI(filepath.Join(stateDir, "pki"))
	if err != nil {
		return fmt.Errorf("creating certificates in %s: %w", stateDir, err)
	}

	etcdServer, etcdURL, err := startEtcd(filepath.Join(stateDir, "etcd"))
	if err != nil {
		return fmt.Errorf("starting embedded etcd: %w", err)
	}
	defer etcdServer.Close()

	server := fmt.Sprintf("https://127.0.0.1:%d", *port)
	kubeconfig := filepath.Join(stateDir, "kubeconfig")
	if err := writeKubeconfig(kubeconfig, server, certs); err != nil {
		return err
	}

	command := app.NewAPIServerCommand()
	serverArgs := apiserverArgs(stateDir, *port, etcdURL, certs, options != nil)
	if *auditLog != "" {
		auditArgs, err := auditLogArgs(stateDir, *auditLog)
		if err != nil {
			return err
		}
		serverArgs = append(serverArgs, auditArgs...)
	}
	command.SetArgs(serverArgs)
	done := make(chan error, 1)
	go func() { done <- command.Execute() }()

	select {
	case err := <-done:
		return fmt.Errorf("kube-apiserver exited before it was ready: %v", err)
	case err := <-waitReady(server, certs):
		if err != nil {
			return err
		}
	}
	if options == nil {
		fmt.Printf("kube-testenv ready server=%s kubeconfig=%s\n", server, kubeconfig)
		return apiserverExit(<-done)
	}
	return serveControllers(stateDir, server, kubeconfig, certs, *options, done)
}

// serveControllers starts the controllers once the API server answers, prints the ready line
// when they are ready, and stops them first on SIGTERM/SIGINT, while the API server (which
// handles the same signal itself) drains.
func serveControllers(stateDir, server, kubeconfig string, certs *pki, options controllerOptions, done <-chan error) error {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-signals; cancel() }()
	running, err := startControllers(ctx, stateDir, kubeconfig, certs, options)
	if err != nil {
		return fmt.Errorf("starting the controllers: %w", err)
	}
	defer running.stop()
	fmt.Printf("kube-testenv ready server=%s kubeconfig=%s controllers=kube-controller-manager,kube-scheduler,kwok nodes=%d\n", server, kubeconfig, options.nodes)
	select {
	case err := <-done:
		return apiserverExit(err)
	case err := <-running.failed:
		return err
	case <-ctx.Done():
		running.stop()
		return apiserverExit(<-done)
	}
}

func apiserverExit(err error) error {
	if err != nil {
		return fmt.Errorf("kube-apiserver: %w", err)
	}
	return nil
}

// apiserverArgs are envtest-like flags: loopback only, RBAC, a static admin token. Without
// controllers, no admission plugin that needs a controller manager to make progress.
func apiserverArgs(stateDir string, port int, etcdURL string, certs *pki, withControllers bool) []string {
	args := []string{
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + filepath.Join(stateDir, "pki"),
		"--tls-cert-file=" + certs.ServingCertFile,
		"--tls-private-key-file=" + certs.ServingKeyFile,
		"--client-ca-file=" + certs.CAFile,
		"--token-auth-file=" + certs.TokenFile,
		"--etcd-servers=" + etcdURL,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + certs.ServiceAccountKeyFile,
		"--service-account-signing-key-file=" + certs.ServiceAccountKeyFile,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=RBAC",
		"--allow-privileged=true",
		"--endpoint-reconciler-type=none",
		"--enable-priority-and-fairness=false",
		"--profiling=false",
		"--v=0",
	}
	if !withControllers {
		// No controller manager runs here, so nothing would create the default ServiceAccount
		// that this plugin waits for; pods in fresh namespaces would be refused.
		args = append(args, "--disable-admission-plugins=ServiceAccount")
	}
	return args
}

// auditPolicy logs each request once, when its response is complete, with metadata only (no
// bodies: nothing of a Secret reaches the file). Counting requests is what it is for.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: Metadata
`

// auditLogArgs writes the audit policy into the state directory and returns the flags that
// make the API server log to path, synchronously, so a finished request is in the file.
func auditLogArgs(stateDir, path string) ([]string, error) {
	policy := filepath.Join(stateDir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, err
	}
	absolute, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return []string{
		"--audit-policy-file=" + policy,
		"--audit-log-path=" + absolute,
		"--audit-log-format=json",
		"--audit-log-mode=blocking",
		"--audit-log-maxsize=0",
	}, nil
}

func startEtcd(dir string) (*embed.Etcd, string, error) {
	clientPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	peerPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	cfg := embed.NewConfig()
	cfg.Name = "testenv"
	cfg.Dir = dir
	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	clientURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", clientPort)}
	peerURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", peerPort)}
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	// A test store: losing it on power failure is fine, waiting for fsync is not.
	cfg.UnsafeNoFsync = true
	etcd, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", err
	}
	select {
	case <-etcd.Server.ReadyNotify():
		return etcd, clientURL.String(), nil
	case <-time.After(60 * time.Second):
		etcd.Close()
		return nil, "", errors.New("etcd was not ready within 60s")
	}
}

func waitReady(server string, certs *pki) <-chan error {
	result := make(chan error, 1)
	go func() {
		caPEM, err := os.ReadFile(certs.CAFile)
		if err != nil {
			result <- err
			return
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(caPEM)
		client := &http.Client{
			Timeout:   2 * time.Second,
			Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		for ctx.Err() == nil {
			request, _ := http.NewRequestWithContext(ctx, http.MethodGet, server+"/readyz", nil)
			request.Header.Set("Authorization", "Bearer "+certs.Token)
			response, err := client.Do(request)
			if err == nil {
				response.Body.Close()
				if response.StatusCode == http.StatusOK {
					result <- nil
					return
				}
			}
			time.Sleep(200 * time.Millisecond)
		}
		result <- fmt.Errorf("%s/readyz did not answer 200 within 3 minutes", server)
	}()
	return result
}

func writeKubeconfig(path, server string, certs *pki) error {
	caPEM, err := os.ReadFile(certs.CAFile)
	if err != nil {
		return err
	}
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: testenv
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: testenv
  context:
    cluster: testenv
    user: admin
current-context: testenv
`, server, base64Std(caPEM), certs.Token)
	return os.WriteFile(path, []byte(content), 0o600)
}

// handedOut holds the ports freePort has already given: the kernel may offer a port again once
// its probe listener is closed, and the API server and etcd must never be handed the same one.
var handedOut = map[int]bool{}

func freePort() (int, error) {
	for attempt := 0; attempt < 50; attempt++ {
		listener, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := listener.Addr().(*net.TCPAddr).Port
		listener.Close()
		if !handedOut[port] {
			handedOut[port] = true
			return port, nil
		}
	}
	return 0, errors.New("no free port on 127.0.0.1 that this process has not already used")
}

func checkPortFree(port int) error {
	listener, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return fmt.Errorf("port %d on 127.0.0.1 is already in use; stop what holds it or pass --port 0 for a free one", port)
	}
	return listener.Close()
}
