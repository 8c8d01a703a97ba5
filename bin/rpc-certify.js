#!/usr/bin/env node
// The CLI is TypeScript run through tsx's loader, so there is no build step between a clone and a run.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
