package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spindle-go/spindle/scan/internal/gitrepo"
)

// A partial clone (git clone --filter=blob:none, blob:limit=N, tree:0)
// lacks objects its promisor remote holds, and git fetches each when a
// command needs it. A scan needs them all, so before the walk it fetches
// what the history lacks, as git's lazy fetch does (git fetch <promisor>
// --no-tags --no-write-fetch-head --filter=blob:none --stdin, the ids on
// standard input), in rounds: a treeless clone's missing trees hide the
// objects below them until they are fetched.
//
// The fetch runs git, which reads the scanned repository's configuration,
// and that configuration may name programs (an fsmonitor, an ssh command,
// a credential helper, hooks, an upload-pack, a proxy, a remote helper
// through a URL's scheme). None of them may run: the child gets a fixed
// environment (no GIT_* variable of this process, no terminal prompt, no
// askpass) and -c overrides, which win over every configuration file, that
// turn each off, allow only the file, http, https and ssh transports
// (remote helpers and ext:: are refused), and fetch from the promisor's
// URL rather than by its remote's name, so that no remote.<name>.*
// setting (uploadpack, vcs, proxy) applies. What is still missing after
// the fetch (git absent, the remote unreachable, objects it does not
// have) is a warning of lost data naming how many objects, and each is
// again a warning naming its commit and path when the scan needs it.

// maxPromisorRounds bounds the fetch rounds: one per level of trees a
// treeless clone lacks, far above any real tree's depth.
const maxPromisorRounds = 64

// promisorRemote returns the URL of the remote a partial clone promises
// objects from, "" if the repository is not a partial clone.
func promisorRemote(r *gitrepo.Repo) (name, url string) {
	cfg := r.Config
	if cfg == nil {
		return "", ""
	}
	name = cfg.Get("extensions", "", "partialclone")
	if name == "" {
		if ok, _ := cfg.Bool("remote", "origin", "promisor"); !ok {
			return "", ""
		}
		name = "origin"
	}
	return name, cfg.Get("remote", name, "url")
}

// gitSafeConfig are the -c overrides of a git child run on a scanned
// repository: each turns off a setting that would run a program the
// repository's configuration names (see above).
func gitSafeConfig() []string {
	kv := []string{
		"core.fsmonitor=false",
		"core.hooksPath=" + os.DevNull,
		"core.sshCommand=ssh",
		"ssh.variant=ssh",
		"core.askPass=",
		"credential.helper=",
		"core.alternateRefsCommand=",
		"core.gitProxy=",
		"gc.auto=0",
		"maintenance.auto=false",
		"fetch.writeCommitGraph=false",
		"fetch.negotiationAlgorithm=noop",
		"submodule.recurse=false",
		"protocol.allow=never",
		"protocol.file.allow=always",
		"protocol.http.allow=always",
		"protocol.https.allow=always",
		"protocol.ssh.allow=always",
		"core.pager=cat",
		"uploadpack.packObjectsHook=",
	}
	args := make([]string, 0, 2*len(kv))
	for _, s := range kv {
		args = append(args, "-c", s)
	}
	return args
}

// gitChildEnv is the environment of a git child: this process's, without
// any GIT_* variable (which could point git elsewhere or name a program),
// with prompts off.
func gitChildEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(strings.ToUpper(name), "GIT_"), name == "SSH_ASKPASS", name == "EDITOR", name == "VISUAL", name == "PAGER":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GIT_NO_LAZY_FETCH=1")
}

// gitCommand runs git with the safe overrides on the repository's git
// directory; stdin may be nil. It returns standard output, and an error
// that holds the end of standard error.
func gitCommand(ctx context.Context, gitBin, gitDir string, stdin []byte, args ...string) ([]byte, error) {
	all := append(gitSafeConfig(), "--git-dir="+gitDir)
	cmd := exec.CommandContext(ctx, gitBin, append(all, args...)...)
	cmd.Env = gitChildEnv()
	cmd.Dir = gitDir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 400 {
			msg = "..." + msg[len(msg)-400:]
		}
		return out, fmt.Errorf("git %s: %w: %s", args[0], err, msg)
	}
	return out, nil
}

// errNoGit is the cause of a partial clone's objects not fetched.
var errNoGit = errors.New("git is not installed to fetch them")

// fetchPromised fetches what the history of a partial clone lacks from
// its promisor remote, and returns how many objects are still missing
// (with the reason). A repository that is not a partial clone costs
// nothing.
func fetchPromised(ctx context.Context, r *gitrepo.Repo) (missing int, err error) {
	name, url := promisorRemote(r)
	if name == "" {
		return 0, nil
	}
	gitBin, lookErr := exec.LookPath("git")
	if lookErr != nil {
		gitBin = ""
	}
	var last string // the ids missing before the last fetch
	for round := 0; ; round++ {
		if gitBin == "" {
			return -1, errNoGit
		}
		ids, err := missingObjects(ctx, gitBin, r.GitDir)
		if err != nil {
			return -1, err
		}
		switch {
		case len(ids) == 0:
			return 0, nil
		case url == "" || strings.HasPrefix(url, "-"):
			return len(ids), fmt.Errorf("the promisor remote %q has no usable URL", name)
		}
		list := strings.Join(ids, "\n") + "\n"
		if round == maxPromisorRounds || list == last {
			return len(ids), fmt.Errorf("the promisor remote %s did not provide them", url)
		}
		last = list
		stdin := []byte(list)
		if _, err := gitCommand(ctx, gitBin, r.GitDir, stdin, "fetch", "--no-tags", "--no-write-fetch-head",
			"--recurse-submodules=no", "--filter=blob:none", "--stdin", url); err != nil {
			return len(ids), err
		}
	}
}

// missingObjects lists the objects the history of every ref lacks, as git
// rev-list --missing=print finds them (it does not fetch them itself).
func missingObjects(ctx context.Context, gitBin, gitDir string) ([]string, error) {
	out, err := gitCommand(ctx, gitBin, gitDir, nil, "rev-list", "--objects", "--missing=print", "--all")
	if err != nil {
		return nil, err
	}
	var ids []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if line := sc.Bytes(); len(line) > 1 && line[0] == '?' {
			ids = append(ids, string(line[1:]))
		}
	}
	return ids, sc.Err()
}
