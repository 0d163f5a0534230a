import type { PipelineAction } from './types.ts';

/**
 * The actions known to this server. `automatic` actions run after the configured ones on every
 * sign-in for which they are pending (the factors plugin's `two_factor`).
 */
export class ActionRegistry {
  private readonly actions = new Map<string, PipelineAction>();
  private readonly automaticIds: string[] = [];

  register(action: PipelineAction): void {
    if (this.actions.has(action.id)) throw new Error(`action "${action.id}" is registered twice`);
    this.actions.set(action.id, action);
    if (action.automatic) this.automaticIds.push(action.id);
  }

  get(id: string): PipelineAction | undefined {
    return this.actions.get(id);
  }

  has(id: string): boolean {
    return this.actions.has(id);
  }

  get automatic(): readonly string[] {
    return this.automaticIds;
  }
}
