import { Avatar } from 'antd';
import { useState } from 'react';
import defaultAvatar from '../../assets/avatar-default.svg';

interface UserAvatarProps {
  src: string | null | undefined;
  size?: number;
}

/** The user's avatar, falling back to the default image when there is none or it fails to load. */
export function UserAvatar({ src, size = 28 }: UserAvatarProps) {
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  const usable = src && src !== failedSrc ? src : defaultAvatar;
  return (
    <Avatar
      size={size}
      src={usable}
      alt="头像"
      onError={() => {
        if (src) setFailedSrc(src);
        // Keep antd from swapping in its empty fallback; the state change above shows the default image.
        return false;
      }}
    />
  );
}
