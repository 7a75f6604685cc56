import protobuf from 'protobufjs';

/**
 * The pprof `Profile` message (github.com/google/pprof proto/profile.proto), built with
 * protobufjs reflection. Field names are camelCase here; only the numbers and types matter on
 * the wire. Repeated scalars are packed, as proto3 encodes them and as Go's pprof writes them.
 */
const PACKABLE = new Set(['int64', 'uint64', 'bool']);

function message(
  name: string,
  fields: readonly (readonly [string, number, string, 'repeated'?])[],
): protobuf.Type {
  const type = new protobuf.Type(name);
  for (const [fieldName, id, fieldType, rule] of fields) {
    const options = rule === 'repeated' && PACKABLE.has(fieldType) ? { packed: true } : undefined;
    type.add(new protobuf.Field(fieldName, id, fieldType, rule ?? 'optional', undefined, options));
  }
  return type;
}

function buildProfileType(): protobuf.Type {
  const root = new protobuf.Root();
  const ns = root.define('perftools.profiles');
  ns.add(
    message('ValueType', [
      ['type', 1, 'int64'],
      ['unit', 2, 'int64'],
    ]),
  );
  ns.add(
    message('Label', [
      ['key', 1, 'int64'],
      ['str', 2, 'int64'],
      ['num', 3, 'int64'],
      ['numUnit', 4, 'int64'],
    ]),
  );
  ns.add(
    message('Sample', [
      ['locationId', 1, 'uint64', 'repeated'],
      ['value', 2, 'int64', 'repeated'],
      ['label', 3, 'Label', 'repeated'],
    ]),
  );
  ns.add(
    message('Mapping', [
      ['id', 1, 'uint64'],
      ['memoryStart', 2, 'uint64'],
      ['memoryLimit', 3, 'uint64'],
      ['fileOffset', 4, 'uint64'],
      ['filename', 5, 'int64'],
      ['buildId', 6, 'int64'],
      ['hasFunctions', 7, 'bool'],
      ['hasFilenames', 8, 'bool'],
      ['hasLineNumbers', 9, 'bool'],
      ['hasInlineFrames', 10, 'bool'],
    ]),
  );
  ns.add(
    message('Line', [
      ['functionId', 1, 'uint64'],
      ['line', 2, 'int64'],
      ['column', 3, 'int64'],
    ]),
  );
  ns.add(
    message('Location', [
      ['id', 1, 'uint64'],
      ['mappingId', 2, 'uint64'],
      ['address', 3, 'uint64'],
      ['line', 4, 'Line', 'repeated'],
      ['isFolded', 5, 'bool'],
    ]),
  );
  ns.add(
    message('Function', [
      ['id', 1, 'uint64'],
      ['name', 2, 'int64'],
      ['systemName', 3, 'int64'],
      ['filename', 4, 'int64'],
      ['startLine', 5, 'int64'],
    ]),
  );
  ns.add(
    message('Profile', [
      ['sampleType', 1, 'ValueType', 'repeated'],
      ['sample', 2, 'Sample', 'repeated'],
      ['mapping', 3, 'Mapping', 'repeated'],
      ['location', 4, 'Location', 'repeated'],
      ['function', 5, 'Function', 'repeated'],
      ['stringTable', 6, 'string', 'repeated'],
      ['dropFrames', 7, 'int64'],
      ['keepFrames', 8, 'int64'],
      ['timeNanos', 9, 'int64'],
      ['durationNanos', 10, 'int64'],
      ['periodType', 11, 'ValueType'],
      ['period', 12, 'int64'],
      ['comment', 13, 'int64', 'repeated'],
      ['defaultSampleType', 14, 'int64'],
    ]),
  );
  root.resolveAll();
  return root.lookupType('perftools.profiles.Profile');
}

/** Plain-object form of a Profile, as encoded by `encodeProfile`. */
export interface PprofProfile {
  sampleType: PprofValueType[];
  sample: { locationId: number[]; value: number[] }[];
  mapping: {
    id: number;
    filename: number;
    hasFunctions: boolean;
    hasFilenames: boolean;
    hasLineNumbers: boolean;
  }[];
  location: { id: number; mappingId: number; line: { functionId: number; line: number }[] }[];
  function: { id: number; name: number; systemName: number; filename: number; startLine: number }[];
  stringTable: string[];
  timeNanos: number;
  durationNanos: number;
  periodType: PprofValueType;
  period: number;
  defaultSampleType: number;
}

export interface PprofValueType {
  type: number;
  unit: number;
}

/** Owns the reflected type; build once per profiler, not per module (no module state). */
export class PprofCodec {
  private readonly profileType = buildProfileType();

  encode(profile: PprofProfile): Uint8Array {
    const err = this.profileType.verify(profile);
    if (err !== null) throw new Error(`invalid pprof profile: ${err}`);
    return this.profileType.encode(this.profileType.fromObject(profile)).finish();
  }

  /** Decodes an (uncompressed) profile with 64-bit integers as numbers; for tests and tools. */
  decode(bytes: Uint8Array): PprofProfile {
    const msg = this.profileType.decode(bytes);
    return this.profileType.toObject(msg, {
      longs: Number,
      arrays: true,
      defaults: true,
    }) as PprofProfile;
  }
}
