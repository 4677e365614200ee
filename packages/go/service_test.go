package watchlog

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A real `watchlog start` as a child process, for the tests that need the real ingest path:
// its idempotency keys, its restart on the same data dir, its queries.

const adminEmail, adminPassword = "admin@example.com", "correct horse battery"

type service struct {
	t       *testing.T
	url     string
	port    int
	dataDir string
	cmd     *exec.Cmd
	mu      sync.Mutex
	out     bytes.Buffer
	exited  chan struct{}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// newestSource is the latest modification time of the TypeScript under dirs.
func newestSource(root string, dirs ...string) time.Time {
	var newest time.Time
	for _, dir := range dirs {
		_ = filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".ts") {
				if info, err := d.Info(); err == nil && info.ModTime().After(newest) {
					newest = info.ModTime()
				}
			}
			return nil
		})
	}
	return newest
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startService runs watchlog on a fresh data dir and a free port (or those given, for a
// restart) and returns once /readyz answers 200; it is killed at the test's end.
func startService(t *testing.T, dataDir string, port int) *service {
	t.Helper()
	if testing.Short() {
		t.Skip("starts watchlog: not with -short")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	if port == 0 {
		port = freePort(t)
	}
	root := repoRoot(t)
	// The compiled server starts in about half the time; without a build newer than the sources,
	// tsx runs the source.
	args := []string{"--import", "tsx", "src/main.ts", "start"}
	if built, err := os.Stat(filepath.Join(root, "dist", "src", "main.js")); err == nil &&
		built.ModTime().After(newestSource(root, "src", "projections")) {
		args = []string{"dist/src/main.js", "start"}
	}
	s := &service{t: t, port: port, dataDir: dataDir, url: fmt.Sprintf("http://127.0.0.1:%d", port),
		exited: make(chan struct{})}
	s.cmd = exec.Command("node", args...)
	s.cmd.Dir = root
	s.cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		fmt.Sprintf("PORT=%d", port), "HOST=127.0.0.1",
		"WATCHLOG_DATA_DIR=" + dataDir,
		"WATCHLOG_ADMIN_EMAIL=" + adminEmail, "WATCHLOG_ADMIN_PASSWORD=" + adminPassword,
		"WATCHLOG_LOG_LEVEL=warn",
		// A login racing the admin's creation is a failed login: never a lockout here.
		"WATCHLOG_LOGIN_ACCOUNT_FAILURES=100",
	}
	pipe, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stderr = s.cmd.Stdout
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s.mu.Lock()
			s.out.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
		}
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(s.kill)
	deadline := time.Now().Add(90 * time.Second)
	for {
		res, err := http.Get(s.url + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return s
			}
		}
		select {
		case <-s.exited:
			t.Fatalf("watchlog exited:\n%s", s.output())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("watchlog not ready within 90 s:\n%s", s.output())
		}
	}
}

func (s *service) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// kill ends the process at once (SIGKILL: no drain) and waits for it.
func (s *service) kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// call is one REST call with the admin's token (or none) and a JSON body.
func (s *service) call(method, path, token string, body, into any) int {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		js, _ := json.Marshal(body)
		rd = bytes.NewReader(js)
	}
	req, _ := http.NewRequestWithContext(context.Background(), method, s.url+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	text, _ := io.ReadAll(res.Body)
	if into != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(text, into); err != nil {
			s.t.Fatalf("%s %s: %v in %s", method, path, err, text)
		}
	}
	if res.StatusCode >= 300 && res.StatusCode != 401 {
		s.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, text)
	}
	return res.StatusCode
}

// login waits out the admin's creation, which comes just after the server starts listening.
func (s *service) login() string {
	s.t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		var out struct{ Token string }
		if s.call("POST", "/v1/auth/login", "", map[string]string{"email": adminEmail, "password": adminPassword},
			&out) == 200 {
			return out.Token
		}
		if time.Now().After(deadline) {
			s.t.Fatal("login failed for 45 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// projectWithKey creates a project and an API key for it, as the dashboard does.
func (s *service) projectWithKey(token, name string) (projectID, apiKey string) {
	s.t.Helper()
	var project struct{ ID string }
	s.call("POST", "/v1/projects", token, map[string]string{"name": name}, &project)
	var key struct{ Key string }
	s.call("POST", "/v1/projects/"+project.ID+"/api-keys", token, map[string]string{"name": "sdk"}, &key)
	return project.ID, key.Key
}

// storedCount is GET /v1/audit's totalItems for the project.
func (s *service) storedCount(token, projectID string) int {
	s.t.Helper()
	var page struct {
		Pagination struct {
			TotalItems int `json:"totalItems"`
		}
	}
	s.call("GET", "/v1/audit?limit=1&project_id="+projectID, token, nil, &page)
	return page.Pagination.TotalItems
}

// waitStored polls until the project holds want events (the read model catches up after the
// answer), and fails with the count it saw otherwise.
func (s *service) waitStored(token, projectID string, want int) {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		n := s.storedCount(token, projectID)
		if n == want {
			return
		}
		if n > want || time.Now().After(deadline) {
			s.t.Fatalf("stored %d events, want %d", n, want)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

type storedEvent struct {
	RequestID   string `json:"request_id"`
	Path        string `json:"path"`
	Method      string `json:"method"`
	ServiceName string `json:"service_name"`
}

// exported is every event of the project, as the JSON export gives them.
func (s *service) exported(token, projectID string) []storedEvent {
	s.t.Helper()
	var events []storedEvent
	s.call("GET", "/v1/audit/export?format=json&project_id="+projectID, token, nil, &events)
	return events
}

// logLines is a slog.Handler keeping the client's lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }

func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, r.Message)
	return nil
}

func (l *logLines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logLines) WithGroup(string) slog.Handler      { return l }

func (l *logLines) matching(substr string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return out
}
