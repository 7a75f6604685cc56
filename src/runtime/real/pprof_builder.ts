import { fileURLToPath } from 'node:url';
import type { PprofProfile, PprofValueType } from './pprof_schema.js';

/** A V8 call frame, as both the CPU and the sampling heap profiler report it. */
export interface V8CallFrame {
  functionName: string;
  url: string;
  /** 0-based; -1 when unknown. */
  lineNumber: number;
  columnNumber: number;
  scriptId?: string;
}

/**
 * Accumulates one pprof profile: the deduplicated string table, one Function per distinct
 * (name, file, line) and one Location per V8 profile node, and samples keyed by their node.
 * All locations hang off a single mapping marked as already symbolized, so pprof never tries
 * to look up a binary.
 */
export class PprofBuilder {
  private readonly strings: string[] = [''];
  private readonly stringIds = new Map<string, number>([['', 0]]);
  private readonly functionIds = new Map<string, number>();
  private readonly functions: PprofProfile['function'] = [];
  private readonly locations: PprofProfile['location'] = [];
  private readonly locationByNode = new Map<number, number>();
  private readonly samples: PprofProfile['sample'] = [];

  str(s: string): number {
    let id = this.stringIds.get(s);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(s);
      this.stringIds.set(s, id);
    }
    return id;
  }

  valueType(type: string, unit: string): PprofValueType {
    return { type: this.str(type), unit: this.str(unit) };
  }

  /** The location id of a profile node, created on first use. */
  location(nodeId: number, frame: V8CallFrame): number {
    let id = this.locationByNode.get(nodeId);
    if (id !== undefined) return id;
    const line = frame.lineNumber >= 0 ? frame.lineNumber + 1 : 0;
    id = this.locations.length + 1;
    this.locations.push({
      id,
      mappingId: 1,
      line: [{ functionId: this.function(frame, line), line }],
    });
    this.locationByNode.set(nodeId, id);
    return id;
  }

  /** `locationIds` leaf first, as pprof expects. */
  addSample(locationIds: number[], values: number[]): void {
    this.samples.push({ locationId: locationIds, value: values });
  }

  build(fields: {
    sampleType: PprofValueType[];
    periodType: PprofValueType;
    period: number;
    timeNanos: number;
    durationNanos: number;
    defaultSampleType: string;
  }): PprofProfile {
    const mapping = {
      id: 1,
      filename: this.str('node'),
      hasFunctions: true,
      hasFilenames: true,
      hasLineNumbers: true,
    };
    const defaultSampleType = this.str(fields.defaultSampleType);
    return {
      sampleType: fields.sampleType,
      sample: this.samples,
      mapping: [mapping],
      location: this.locations,
      function: this.functions,
      stringTable: this.strings,
      timeNanos: fields.timeNanos,
      durationNanos: fields.durationNanos,
      periodType: fields.periodType,
      period: fields.period,
      defaultSampleType,
    };
  }

  private function(frame: V8CallFrame, startLine: number): number {
    const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
    const file = displayFileName(frame.url);
    const key = `${name}\u0000${file}\u0000${startLine}`;
    let id = this.functionIds.get(key);
    if (id === undefined) {
      id = this.functions.length + 1;
      const nameId = this.str(name);
      this.functions.push({
        id,
        name: nameId,
        systemName: nameId,
        filename: this.str(file),
        startLine,
      });
      this.functionIds.set(key, id);
    }
    return id;
  }
}

/** `file:///app/x.js` becomes `/app/x.js` so `pprof -list` can find the source. */
function displayFileName(url: string): string {
  if (!url.startsWith('file://')) return url;
  try {
    return fileURLToPath(url);
  } catch {
    return url;
  }
}
