// SPDX-License-Identifier: MIT

// Package validate decodes loadlens's Kubernetes manifests (packaging/kubernetes/*.yaml)
// strictly into the API's own Go types (k8s.io/api): a field the type does not have, a field
// given twice or a value of the wrong type is an error, as the API server's strict field
// validation would say. Then the checks the API cannot make: the Indexed Job's N agrees with
// its --shard, every $(VAR) in a command names a variable the container has.
package validate

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Object is one decoded document: its kind and name, and the typed value.
type Object struct {
	Kind string
	Name string
	Obj  any
}

type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// newObject returns an empty value of the API type for apiVersion and kind.
func newObject(tm typeMeta) (any, error) {
	switch tm.APIVersion + " " + tm.Kind {
	case "batch/v1 Job":
		return &batchv1.Job{}, nil
	case "apps/v1 DaemonSet":
		return &appsv1.DaemonSet{}, nil
	case "v1 ConfigMap":
		return &corev1.ConfigMap{}, nil
	case "v1 PersistentVolumeClaim":
		return &corev1.PersistentVolumeClaim{}, nil
	case "v1 Namespace":
		return &corev1.Namespace{}, nil
	}
	return nil, fmt.Errorf("apiVersion %q kind %q: not a kind these manifests use", tm.APIVersion, tm.Kind)
}

var docSep = regexp.MustCompile(`(?m)^---[ \t]*$`)

// Decode splits a YAML file into its documents and decodes each strictly into its API type.
func Decode(file string, data []byte) ([]Object, error) {
	var out []Object
	for i, doc := range docSep.Split(string(data), -1) {
		if len(bytes.TrimSpace(stripComments([]byte(doc)))) == 0 {
			continue
		}
		var tm typeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			return nil, fmt.Errorf("%s: document %d: %v", file, i+1, err)
		}
		obj, err := newObject(tm)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %v", file, i+1, err)
		}
		if err := strict([]byte(doc), obj); err != nil {
			return nil, fmt.Errorf("%s: document %d (%s): %v", file, i+1, tm.Kind, err)
		}
		out = append(out, Object{Kind: tm.Kind, Name: name(obj), Obj: obj})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no document", file)
	}
	return out, nil
}

// strict decodes one YAML document as the API server's strict field validation does: YAML to
// JSON refusing a key given twice, then JSON into OBJ case-sensitively (encoding/json, which
// yaml.UnmarshalStrict uses, takes "hostPid" for hostPID), refusing unknown and duplicate
// fields.
func strict(doc []byte, obj any) error {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	errs, err := kjson.UnmarshalStrict(js, obj, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
	return nil
}

func stripComments(doc []byte) []byte {
	var b bytes.Buffer
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func name(obj any) string {
	switch o := obj.(type) {
	case *batchv1.Job:
		return o.Name
	case *appsv1.DaemonSet:
		return o.Name
	case *corev1.ConfigMap:
		return o.Name
	case *corev1.PersistentVolumeClaim:
		return o.Name
	case *corev1.Namespace:
		return o.Name
	}
	return ""
}

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
var shardArg = regexp.MustCompile(`^\$\(JOB_COMPLETION_INDEX\)/([0-9]+)$`)

// CheckVars: every $(VAR) in a container's command and args names one of its env variables
// (or JOB_COMPLETION_INDEX in an Indexed Job's pods), since the kubelet passes an unknown
// reference on as it is, literally.
func CheckVars(spec *corev1.PodSpec, indexed bool) error {
	for _, c := range spec.Containers {
		have := map[string]bool{}
		for _, e := range c.Env {
			have[e.Name] = true
		}
		if indexed {
			have["JOB_COMPLETION_INDEX"] = true
		}
		for _, s := range append(append([]string{}, c.Command...), c.Args...) {
			for _, m := range varRef.FindAllStringSubmatch(strings.ReplaceAll(s, "$$", ""), -1) {
				if !have[m[1]] {
					return fmt.Errorf("container %s: $(%s) is in its command but not in its env", c.Name, m[1])
				}
			}
		}
	}
	return nil
}

// CheckIndexedJob: the driver Job is Indexed, runs all N at once, and its --shard says N.
func CheckIndexedJob(job *batchv1.Job) error {
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		return fmt.Errorf("job %s: completionMode is not Indexed", job.Name)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism {
		return fmt.Errorf("job %s: completions and parallelism must be set and equal", job.Name)
	}
	n := fmt.Sprint(*s.Completions)
	for _, c := range s.Template.Spec.Containers {
		args := append(append([]string{}, c.Command...), c.Args...)
		for i, a := range args {
			if a == "--shard" && i+1 < len(args) {
				m := shardArg.FindStringSubmatch(args[i+1])
				if m == nil {
					return fmt.Errorf("job %s: --shard %s is not $(JOB_COMPLETION_INDEX)/N", job.Name, args[i+1])
				}
				if m[1] != n {
					return fmt.Errorf("job %s: --shard .../%s but completions = %s", job.Name, m[1], n)
				}
				return CheckVars(&s.Template.Spec, true)
			}
		}
	}
	return fmt.Errorf("job %s: no container passes --shard", job.Name)
}
