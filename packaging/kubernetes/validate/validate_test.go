// SPDX-License-Identifier: MIT

package validate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// the manifests, one folder up
func manifests(t *testing.T) map[string][]byte {
	files, err := filepath.Glob("../*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifest in packaging/kubernetes (%v)", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

func decodeAll(t *testing.T) map[string]Object {
	objs := map[string]Object{}
	for f, b := range manifests(t) {
		got, err := Decode(f, b)
		if err != nil {
			t.Fatalf("%v", err)
		}
		for _, o := range got {
			objs[o.Kind+"/"+o.Name] = o
		}
	}
	return objs
}

func TestManifestsDecodeStrictly(t *testing.T) {
	objs := decodeAll(t)
	for _, want := range []string{"Job/loadlens-drivers", "Job/loadlens-merge",
		"DaemonSet/loadlens-observer", "ConfigMap/loadlens-run", "ConfigMap/loadlens-observer",
		"PersistentVolumeClaim/loadlens-results", "Namespace/loadlens"} {
		if _, ok := objs[want]; !ok {
			t.Errorf("no %s in packaging/kubernetes/*.yaml", want)
		}
	}
}

func TestDriverJobIsIndexedWithItsN(t *testing.T) {
	job := decodeAll(t)["Job/loadlens-drivers"].Obj.(*batchv1.Job)
	if err := CheckIndexedJob(job); err != nil {
		t.Fatal(err)
	}
	merge := decodeAll(t)["Job/loadlens-merge"].Obj.(*batchv1.Job)
	var shards int
	for _, a := range merge.Spec.Template.Spec.Containers[0].Args {
		if strings.HasPrefix(a, "/results/shard-") {
			shards++
		}
	}
	if shards != int(*job.Spec.Completions) {
		t.Fatalf("the merge reads %d shards, the Job runs %d", shards, *job.Spec.Completions)
	}
}

func TestObserverLeastPrivilege(t *testing.T) {
	ds := decodeAll(t)["DaemonSet/loadlens-observer"].Obj.(*appsv1.DaemonSet)
	if err := CheckVars(&ds.Spec.Template.Spec, false); err != nil {
		t.Fatal(err)
	}
	c := ds.Spec.Template.Spec.Containers[0]
	sc := c.SecurityContext
	if sc == nil || sc.Capabilities == nil {
		t.Fatal("the observer has no securityContext.capabilities")
	}
	if sc.Privileged != nil && *sc.Privileged {
		t.Fatal("the observer is privileged")
	}
	if len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
		t.Fatalf("the observer drops %v, not ALL", sc.Capabilities.Drop)
	}
	for _, capa := range sc.Capabilities.Add {
		if capa == "SYS_ADMIN" || capa == "CAP_SYS_ADMIN" {
			t.Fatal("the observer adds SYS_ADMIN")
		}
	}
	if c.Resources.Limits.Memory().IsZero() {
		t.Fatal("the observer has no memory limit")
	}
	if ds.Spec.Template.Annotations["prometheus.io/scrape"] != "true" {
		t.Fatal("no prometheus.io/scrape annotation")
	}
}

// The negative cases: each real manifest with one mistake must fail to decode or check.
func TestMistakesFail(t *testing.T) {
	files := manifests(t)
	cases := []struct{ file, from, to, want string }{
		{"driver-job.yaml", "completionMode: Indexed", "completionsMode: Indexed", `unknown field "spec.completionsMode"`},
		{"driver-job.yaml", "      restartPolicy: Never", "      restartPolicy: Never\n      restartPolicy: Never", "already set"},
		{"driver-job.yaml", "completions: 4", "completions: four", "cannot unmarshal"},
		{"observer-daemonset.yaml", "hostPID: true", "hostPid: true", `unknown field "spec.template.spec.hostPid"`},
		{"observer-daemonset.yaml", "readOnlyRootFilesystem: true", "readOnlyRootFileSystem: true", "unknown field"},
		{"merge-job.yaml", "apiVersion: batch/v1", "apiVersion: batch/v2", "not a kind"},
	}
	for _, c := range cases {
		src := string(files[c.file])
		if !strings.Contains(src, c.from) {
			t.Fatalf("%s no longer holds %q: update this case", c.file, c.from)
		}
		_, err := Decode(c.file, []byte(strings.Replace(src, c.from, c.to, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with %q -> %q: got %v, want an error with %q", c.file, c.from, c.to, err, c.want)
		}
	}
	// decoded, but wrong: the shard's N against completions, a $(VAR) with no env
	for _, c := range []struct{ from, to, want string }{
		{"$(JOB_COMPLETION_INDEX)/4", "$(JOB_COMPLETION_INDEX)/3", "completions = 4"},
		{"- $(START_AT)", "- $(START_ATT)", "$(START_ATT) is in its command"},
		{"parallelism: 4", "parallelism: 2", "must be set and equal"},
	} {
		objs, err := Decode("driver-job.yaml", []byte(strings.Replace(string(files["driver-job.yaml"]), c.from, c.to, 1)))
		if err != nil {
			t.Fatalf("%q -> %q: %v", c.from, c.to, err)
		}
		err = CheckIndexedJob(objs[0].Obj.(*batchv1.Job))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("driver-job.yaml with %q -> %q: got %v, want %q", c.from, c.to, err, c.want)
		}
	}
	var _ corev1.PodSpec
}
