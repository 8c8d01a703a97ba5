// The other endpoints of a side-by-side run, as one endpoint's checks see them (the vote itself: core/vote.ts).
import type { Exchange } from '../../core/node/rpc-client.ts';

/** The other endpoints of a side-by-side run, as one endpoint's checks see them (RunState.peers). */
export interface Peers {
  /** This endpoint's name. */
  self: string;
  /** Every other endpoint's name, in the order given. */
  names: readonly string[];
  /** The methods the run compares (its --methods); all when absent. */
  methods?: readonly string[];
  /** The same call made to every other endpoint, once each for the whole run (shared by every endpoint's checks). */
  ask(method: string, params: unknown[]): Promise<Array<{ name: string; exchange: Exchange }>>;
}
