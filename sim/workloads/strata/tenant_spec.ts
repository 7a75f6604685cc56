/** A tenant of the Strata workload (its own file: the config parsers of every feature use it). */
export interface TenantSpec {
  name: string;
  /** The tenant's `out_of_order_time_window` override (ms); 0 = none (the default config). */
  outOfOrderWindowMs: number;
}
