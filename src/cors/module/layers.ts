/** Route-level options given in layers, merged field by field. */
import { mergeCorsOptions, type AnyCorsOptions } from '../core/options.js';
import { checkOptionsObject } from '../core/policy.js';

/**
 * Options given in layers (say a module's route options, then a controller's), each checked
 * and merged field by field over the one before, the later winning. `source` names them.
 */
export function layerCorsOptions(layers: readonly unknown[], source: string): AnyCorsOptions {
  let merged: AnyCorsOptions = {};
  for (const layer of layers) {
    checkOptionsObject(layer, source);
    merged = mergeCorsOptions(merged, layer);
  }
  return merged;
}
