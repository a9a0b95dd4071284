/** ImageReference is a container image split into its parts, as WebApp v1beta1 declares it. */
export interface ImageReference {
  /** Registry (with port) and path, e.g. `registry.example.com:5000/shop/web`. */
  repository: string;
  /** The tag after the last `:` of the last path element; absent means the registry's default (`latest`). */
  tag?: string;
  /** The content digest after `@`, e.g. `sha256:…`; pins the image whatever the tag says. */
  digest?: string;
}

/**
 * splitImage splits an image string into repository, tag and digest. It is the exact inverse of
 * joinImage for every string (a malformed reference stays whole in `repository`), so a v1alpha1
 * image survives conversion to v1beta1 and back byte for byte.
 */
export function splitImage(image: string): ImageReference {
  const at = image.indexOf('@');
  const digest = at > 0 ? image.slice(at + 1) : undefined;
  const rest = at > 0 ? image.slice(0, at) : image;
  const colon = rest.lastIndexOf(':');
  // A colon before the last slash is a registry port, not a tag.
  const hasTag = colon > 0 && colon > rest.lastIndexOf('/');
  return {
    repository: hasTag ? rest.slice(0, colon) : rest,
    ...(hasTag ? { tag: rest.slice(colon + 1) } : {}),
    ...(digest !== undefined ? { digest } : {}),
  };
}

/** joinImage writes an image reference as the one string a container spec takes. */
export function joinImage(image: ImageReference): string {
  return `${image.repository}${image.tag !== undefined ? `:${image.tag}` : ''}${image.digest !== undefined ? `@${image.digest}` : ''}`;
}
