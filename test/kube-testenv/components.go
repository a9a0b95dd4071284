package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// component is one child process of a full control plane (controller manager, scheduler, KWOK).
// Its output goes to a log file in the state directory, never to stdout, which carries the
// ready line.
type component struct {
	name    string
	logPath string
	command *exec.Cmd
	exited  chan struct{}
	err     error
}

func startComponent(binary, stateDir, name string, args []string) (*component, error) {
	logPath := filepath.Join(stateDir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	command := exec.Command(binary, args...)
	command.Stdout = logFile
	command.Stderr = logFile
	// If serve dies without stopping its children (SIGKILL), the kernel ends them too.
	command.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := command.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", name, binary, err)
	}
	c := &component{name: name, logPath: logPath, command: command, exited: make(chan struct{})}
	go func() {
		c.err = command.Wait()
		logFile.Close()
		close(c.exited)
	}()
	return c, nil
}

// failure says that the component exited, with the end of its log, or nil while it runs.
func (c *component) failure() error {
	select {
	case <-c.exited:
		return fmt.Errorf("%s exited (%v). The end of %s:\n%s", c.name, c.err, c.logPath, c.logTail())
	default:
		return nil
	}
}

func (c *component) logTail() string {
	content, err := os.ReadFile(c.logPath)
	if err != nil {
		return err.Error()
	}
	if len(content) > 3000 {
		content = content[len(content)-3000:]
	}
	return strings.TrimSpace(string(content))
}

// stop asks the component to end (SIGTERM) and kills it after the grace period.
func (c *component) stop(grace time.Duration) {
	if c.command.Process == nil {
		return
	}
	_ = c.command.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(grace):
		_ = c.command.Process.Kill()
		<-c.exited
	}
}

// components is the set of child processes; one of them exiting is reported on failed.
type components struct {
	list   []*component
	failed chan error
	once   sync.Once
}

func (cs *components) add(c *component) {
	cs.list = append(cs.list, c)
	go func() {
		<-c.exited
		if err := c.failure(); err != nil {
			select {
			case cs.failed <- err:
			default:
			}
		}
	}()
}

// firstFailure returns the first component that has exited, or nil.
func (cs *components) firstFailure() error {
	for _, c := range cs.list {
		if err := c.failure(); err != nil {
			return err
		}
	}
	return nil
}

func (cs *components) stop() {
	cs.once.Do(func() {
		var wg sync.WaitGroup
		for _, c := range cs.list {
			wg.Add(1)
			go func() { defer wg.Done(); c.stop(10 * time.Second) }()
		}
		wg.Wait()
	})
}

// controllersBinary finds kube-controllers next to this binary unless a path is given.
func controllersBinary(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	path := filepath.Join(filepath.Dir(self), "kube-controllers")
	if _, err := os.Stat(path); err != nil {
		return "", errors.New(path + " is missing: --controllers needs the kube-controllers binary (go build -o bin/kube-controllers ./controllers in test/kube-testenv, or npx tsx scripts/build-testenv.ts)")
	}
	return path, nil
}
