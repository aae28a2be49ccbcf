import { setFlagsFromString } from 'node:v8';

/**
 * Start-up allocates a lot that lives on (modules, compiled schemas and pipelines); V8 answers
 * that by growing the young generation to its maximum (2 x 16 MB), which then stays resident
 * for the life of an idle process. While the gateway starts, the young generation is kept at
 * its initial size (what survives goes to the old generation, where it belongs); once the
 * gateway serves, V8's usual growth is back, so load still gets the large young generation
 * that keeps scavenges rare.
 */
export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/** V8's default growth of the young generation (factor 2), for serving under load. */
export function releaseYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=2');
}
