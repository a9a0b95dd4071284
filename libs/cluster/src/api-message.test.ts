import { describe, expect, it } from 'vitest';
import { cleanApiMessage, isSchemaConversionError } from './api-message';

// Verbatim answers of kube-apiserver v1.37 to server-side applies of a Deployment.
const replicas = 'failed to create typed patch object (default/d; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string';
const image = 'failed to create typed patch object (default/d; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="x"].image: expected string, got &value.valueUnstructured{Value:map[string]interface {}{"a":"b"}}';
const ports = 'failed to create typed patch object (default/d; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="x"].ports: expected list, got &{eighty}';

describe('cleanApiMessage', () => {
  it('keeps the field path and drops the typed-object preamble', () => {
    expect(cleanApiMessage(replicas)).toBe('.spec.replicas: expected numeric (int or float), got string');
  });

  it('replaces Go struct dumps by the type of the value, never the value', () => {
    expect(cleanApiMessage(image)).toBe('.spec.template.spec.containers[name="x"].image: expected string, got an object');
    expect(cleanApiMessage(ports)).toBe('.spec.template.spec.containers[name="x"].ports: expected list, got a value of another type');
    expect(cleanApiMessage('.data.x: expected string, got &value.valueUnstructured{Value:[]interface {}{"s3cret"}}')).toBe('.data.x: expected string, got a list');
    expect(cleanApiMessage('got (*int64)(0xc000123456) here')).toBe('got a value here');
  });

  it('lists several field errors in one sentence', () => {
    const both = 'failed to create typed patch object (ns/web; apps/v1, Kind=Deployment): errors:\n  .spec.replicas: expected numeric (int or float), got string\n  .spec.template.spec.containers[name="app"].image: expected string, got &value.valueUnstructured{Value:map[string]interface {}{"registry":"docker.io"}}';
    expect(cleanApiMessage(both)).toBe('.spec.replicas: expected numeric (int or float), got string; .spec.template.spec.containers[name="app"].image: expected string, got an object');
  });

  it('leaves ordinary messages alone', () => {
    const message = 'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0';
    expect(cleanApiMessage(message)).toBe(message);
  });

  it('tells schema conversion errors from server faults', () => {
    expect([replicas, image, ports].every(isSchemaConversionError)).toBe(true);
    expect(isSchemaConversionError('etcdserver: request timed out')).toBe(false);
    expect(isSchemaConversionError('Internal error occurred: resource quota evaluation timed out')).toBe(false);
  });
});
